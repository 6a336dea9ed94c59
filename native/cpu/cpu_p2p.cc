// send/recv through per-(src,dst) mailboxes: single-producer single-consumer rings in the segment.
//
// A message is a byte stream of [8-byte header: tag | length][payload][padding to 8]. The sender
// writes whatever fits and returns once everything is in the ring (so a send completes for any
// size as long as the peer keeps receiving); the receiver checks the header against its own
// length before it copies any payload. Both sides ring the other's doorbell after each advance.
//
// Every pending op of a call (a single send/recv, or all p2p ops of a group) is tried in turn;
// when none can move, the rank sleeps on its doorbell. So rings and exchanges never deadlock,
// whatever the message sizes. Messages between one pair of ranks keep their issue order.
#include <algorithm>
#include <cstring>

#include "common/errors.h"
#include "cpu/cpu_comm.h"

namespace clab {

namespace {

constexpr uint64_t kHeaderTag = 0xC1ull << 56;
constexpr uint64_t kHeaderBytes = 8;

struct P2p {
  bool send;
  int peer;
  uint8_t* buf;
  uint64_t len, total, done;
  uint8_t header[kHeaderBytes];
  bool finished;
};

void ring_in(uint8_t* ring, uint64_t size, uint64_t pos, const uint8_t* src, uint64_t n) {
  const uint64_t at = pos % size, first = std::min(n, size - at);
  std::memcpy(ring + at, src, first);
  if (n > first) std::memcpy(ring, src + first, n - first);
}

void ring_out(const uint8_t* ring, uint64_t size, uint64_t pos, uint8_t* dst, uint64_t n) {
  const uint64_t at = pos % size, first = std::min(n, size - at);
  std::memcpy(dst, ring + at, first);
  if (n > first) std::memcpy(dst + first, ring, n - first);
}

}  // namespace

void CpuComm::run_p2p(const std::vector<const Op*>& ops) {
  const uint64_t size = seg_->mailbox_bytes();
  std::vector<P2p> st;
  std::vector<int> peers;
  for (const Op* op : ops) {
    P2p s{};
    s.send = op->kind == OpKind::Send;
    s.peer = op->peer;
    s.buf = s.send ? op->send : op->recv;
    s.len = op->count * dtype_size(op->dtype);
    s.total = kHeaderBytes + (s.len + 7) / 8 * 8;
    const uint64_t header = kHeaderTag | s.len;
    std::memcpy(s.header, &header, kHeaderBytes);
    st.push_back(s);
    if (std::find(peers.begin(), peers.end(), s.peer) == peers.end()) peers.push_back(s.peer);
  }
  RankInfo* me = seg_->rank_info(static_cast<uint32_t>(rank_));
  const WaitCheck check = [this, &peers](bool t) { on_wait(t, &peers); };

  // Moves as much of [s.done, s.total) as the ring allows. True when it moved anything.
  auto progress = [&](P2p& s) -> bool {
    const uint32_t src = static_cast<uint32_t>(s.send ? rank_ : s.peer);
    const uint32_t dst = static_cast<uint32_t>(s.send ? s.peer : rank_);
    MboxCtl* ctl = seg_->mbox(src, dst);
    uint8_t* ring = seg_->mbox_data(src, dst);
    const uint64_t head = s.send ? ctl->head.load(std::memory_order_relaxed) : ctl->head.load(std::memory_order_acquire);
    const uint64_t tail = s.send ? ctl->tail.load(std::memory_order_acquire) : ctl->tail.load(std::memory_order_relaxed);
    const uint64_t room = s.send ? size - (head - tail) : head - tail;
    const uint64_t n = std::min(room, s.total - s.done);
    if (n == 0) return false;
    uint64_t d = s.done, pos = s.send ? head : tail;
    const uint64_t end = d + n;
    while (d < end) {
      uint64_t m;
      if (d < kHeaderBytes) {
        m = std::min(end, kHeaderBytes) - d;
        if (s.send) ring_in(ring, size, pos, s.header + d, m);
        else
          ring_out(ring, size, pos, s.header + d, m);
        if (!s.send && d + m == kHeaderBytes) {
          uint64_t got;
          std::memcpy(&got, s.header, kHeaderBytes);
          if (got != (kHeaderTag | s.len)) {
            const std::string msg =
                "recv from rank " + std::to_string(s.peer) + " expects " + std::to_string(s.len) + " bytes but rank " +
                std::to_string(s.peer) +
                ((got >> 56) == (kHeaderTag >> 56) ? " sent " + std::to_string(got & ~kHeaderTag) + " bytes" : " sent a corrupt message") +
                " (send and recv must match in count × element size)";
            set_abort(rank_, msg);
            throw_invalid(msg);
          }
        }
      } else if (d < kHeaderBytes + s.len) {
        m = std::min(end, kHeaderBytes + s.len) - d;
        if (s.send) ring_in(ring, size, pos, s.buf + (d - kHeaderBytes), m);
        else
          ring_out(ring, size, pos, s.buf + (d - kHeaderBytes), m);
      } else {
        m = end - d;  // padding
      }
      d += m;
      pos += m;
    }
    if (s.send) ctl->head.store(head + n, std::memory_order_release);
    else
      ctl->tail.store(tail + n, std::memory_order_release);
    s.done = end;
    clab::ring(&seg_->rank_info(static_cast<uint32_t>(s.peer))->doorbell);
    return true;
  };

  size_t left = st.size();
  while (left > 0) {
    check_abort();
    const uint32_t seen = me->doorbell.value.load(std::memory_order_acquire);
    bool moved = false;
    uint64_t busy_send = 0, busy_recv = 0;  // peers with an earlier unfinished message
    for (P2p& s : st) {
      if (s.finished) continue;
      uint64_t& busy = s.send ? busy_send : busy_recv;
      const uint64_t bit = 1ull << s.peer;
      if (busy & bit) continue;
      if (progress(s)) moved = true;
      if (s.done == s.total) {
        s.finished = true;
        left--;
      } else {
        busy |= bit;
      }
    }
    if (left > 0 && !moved) wait_change(&me->doorbell, seen, check);
  }
}

}  // namespace clab
