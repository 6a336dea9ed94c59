#include "cpu/cpu_comm.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "common/errors.h"
#include "data/data_host.h"

namespace clab {

namespace {

constexpr uint64_t kMaxTunable = 64ull << 20;

uint64_t env_bytes(const char* name, uint64_t fallback, uint64_t min_bytes) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  errno = 0;
  const unsigned long long x = std::strtoull(v, &end, 10);
  if (errno || *end || x < min_bytes || x > kMaxTunable || x % 64)
    throw_invalid(std::string(name) + "=" + v + " must be a multiple of 64 between " + std::to_string(min_bytes) + " and " +
                  std::to_string(kMaxTunable));
  return x;
}

// Bytes per rank per collective chunk: 512 KiB (a chunk of every rank stays in L2/L3), less for
// worlds over 16 (8 MiB per parity in all). Chosen with test/native/perf.cjs --slot.
uint64_t default_slot_bytes(uint64_t world) {
  uint64_t s = 512ull << 10;
  while (s > (64ull << 10) && s * world > (8ull << 20)) s >>= 1;
  return s;
}

uint64_t default_mailbox_bytes(uint64_t world) {
  uint64_t m = 1ull << 20;  // 1 MiB per ordered pair, less for large worlds (16 MiB in all)
  while (m > (16ull << 10) && m * world * world > (16ull << 20)) m >>= 1;
  return m;
}

/** True while `pid` runs (a zombie counts as dead). */
bool process_alive(int pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;  // cannot tell: assume alive
  const size_t paren = line.rfind(')');
  if (paren == std::string::npos || paren + 2 >= line.size()) return true;
  const char state = line[paren + 2];
  return state != 'Z' && state != 'X';
}

}  // namespace

std::string CpuComm::create_unique_id(int world) {
  if (world < 1 || world > static_cast<int>(kMaxWorld))
    throw_invalid("world must be an integer between 1 and " + std::to_string(kMaxWorld) + " (got " + std::to_string(world) + ")");
  const uint64_t w = static_cast<uint64_t>(world);
  const uint64_t slot_min = std::max<uint64_t>(256, w * 64);
  const uint64_t slot = env_bytes("CLAB_CPU_SLOT_BYTES", std::max(default_slot_bytes(w), slot_min), slot_min);
  const uint64_t mailbox = env_bytes("CLAB_CPU_MAILBOX_BYTES", default_mailbox_bytes(w), 64);
  return ShmSegment::create(static_cast<uint32_t>(world), slot, mailbox);
}

CpuComm::CpuComm(const std::string& id, int rank, int world) : rank_(rank), world_(world) {
  if (world < 1 || world > static_cast<int>(kMaxWorld))
    throw_invalid("world must be an integer between 1 and " + std::to_string(kMaxWorld) + " (got " + std::to_string(world) + ")");
  if (rank < 0 || rank >= world)
    throw_invalid("rank " + std::to_string(rank) + " is out of range for world " + std::to_string(world) + " (0.." +
                  std::to_string(world - 1) + ")");
  seg_ = std::make_unique<ShmSegment>(id, static_cast<uint32_t>(rank), static_cast<uint32_t>(world));
}

CpuComm::~CpuComm() { close(); }

void CpuComm::close() {
  if (closed_.exchange(true)) return;
  seg_->detach();
}

uint64_t CpuComm::admit(const Op& op, int, bool) { return op_traits(op.kind).cls == OpClass::Compute ? 0 : ++admitted_; }

void CpuComm::execute(const Op& op, int repeat, uint64_t ticket, StreamContext& ctx, Times& times) {
  std::vector<uint64_t>& start = times.start;
  std::vector<uint64_t>& end = times.end;
  start.clear();
  end.clear();
  const bool data = op_has_data(op);
  if (data) times.data_fill_start = now_ns();
  fill_host_data(op, rank_, world_);  // before its turn: other streams' ops need not wait for it
  if (data) times.data_fill_end = now_ns();
  std::unique_lock<std::mutex> lock(comm_mu_, std::defer_lock);
  // Marks this ticket done however the op ends, so the next one's stream can go on.
  struct Done {
    CpuComm* comm;
    uint64_t ticket;
    ~Done() {
      if (!ticket) return;
      comm->served_ = ticket;
      comm->turn_changed_.notify_all();
    }
  } done{this, 0};
  if (ticket) {  // gemm (no ticket) overlaps communication on other streams
    lock.lock();
    // Each stream runs its ops in enqueue order and tickets grow in that order, so the next ticket
    // is always at the head of some stream: waiting cannot deadlock. Abort and destroy() end it.
    while (served_ + 1 != ticket) {
      if (closed_.load()) throw ClabError(ErrCode::Aborted, "the communicator was destroyed");
      check_abort();
      turn_changed_.wait_for(lock, std::chrono::milliseconds(10));
    }
    done.ticket = ticket;
    current_ = op_kind_name(op.kind);
  }
  if (closed_.load()) throw ClabError(ErrCode::Aborted, "the communicator was destroyed");
  for (int r = 0; r < repeat; r++) {
    check_abort();
    start.push_back(now_ns());
    if (op_traits(op.kind).cls == OpClass::Compute) ctx.gemm.run(op.dtype, op.m, op.n, op.k);
    else
      run_comm(op);
    end.push_back(now_ns());
  }
  if (data) times.data_check_start = now_ns();
  check_host_data(op, rank_, world_);
  if (data) times.data_check_end = now_ns();
}

std::string CpuComm::data_unavailable() const {
  if (data_place_from_env() == "backend") return "";
  return "the cpu backend leaves data to the host, which makes and checks it in the same memory (CLAB_DATA=backend: this backend does)";
}

void CpuComm::check_abort() {
  if (!closed_.load(std::memory_order_relaxed) && seg_->hdr()->abort_state.load(std::memory_order_acquire) != 0) throw_aborted();
}

void CpuComm::throw_aborted() {
  SegHeader* h = seg_->hdr();
  while (h->abort_state.load(std::memory_order_acquire) == 1) usleep(10);  // reason being written
  throw ClabError(ErrCode::Aborted, "communicator aborted by rank " + std::to_string(h->abort_rank) + ": " + std::string(h->abort_reason));
}

void CpuComm::set_abort(int by_rank, const std::string& reason) {
  SegHeader* h = seg_->hdr();
  uint32_t expected = 0;
  if (h->abort_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    h->abort_rank = by_rank;
    std::snprintf(h->abort_reason, sizeof h->abort_reason, "%s", reason.c_str());
    h->abort_state.store(2, std::memory_order_release);
  }
  // Bump every word a rank may sleep on: no sleeper can miss this. Barrier waiters released by the
  // bump re-check the flag before they touch data (coll_sync).
  ring(&h->barrier.gen);
  for (int r = 0; r < world_; r++) ring(&seg_->rank_info(static_cast<uint32_t>(r))->doorbell);
}

bool CpuComm::abort_reason_is(const std::string& reason) const {
  SegHeader* h = seg_->hdr();
  while (h->abort_state.load(std::memory_order_acquire) == 1) usleep(10);
  return std::strncmp(h->abort_reason, reason.c_str(), sizeof h->abort_reason - 1) == 0;
}

void CpuComm::abort(const std::string& reason) {
  if (closed_.load()) return;
  set_abort(rank_, reason.empty() ? "abort() called" : reason);
}

void CpuComm::on_wait(bool timed_out, const std::vector<int>* peers) {
  check_abort();
  if (!timed_out) return;
  const int n = peers ? static_cast<int>(peers->size()) : world_;
  for (int i = 0; i < n; i++) {
    const int q = peers ? (*peers)[i] : i;
    if (q == rank_) continue;
    RankInfo* info = seg_->rank_info(static_cast<uint32_t>(q));
    if (info->detached.load(std::memory_order_acquire))
      throw ClabError(ErrCode::Aborted, "rank " + std::to_string(q) + " destroyed its communicator while rank " + std::to_string(rank_) +
                                            " was waiting for it in " + current_);
    const int pid = info->pid.load(std::memory_order_acquire);
    if (pid > 0 && !process_alive(pid)) {
      set_abort(q, "its process (pid " + std::to_string(pid) + ") exited without destroy() (killed or crashed)");
      throw_aborted();
    }
  }
}

}  // namespace clab
