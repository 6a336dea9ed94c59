// The POSIX shared-memory segment of one cpu communicator: creation, attach, layout.
//
// Layout (offsets page-aligned, every shared word on its own cache line):
//   SegHeader                       magic, sizes, attach count, abort state, the barrier
//   RankInfo[world]                 claimed/pid/detached, doorbell, collective signatures
//   collective area, 2 parities:    (world slots + 1 result area) x slot_bytes each
//   mailboxes[src][dst]             MboxCtl (head, tail) + a ring of mailbox_bytes
//
// Lifetime: createUniqueId creates and initialises it, then unmaps. Each rank attaches; the
// last of `world` ranks to attach shm_unlinks the name, so nothing stays in /dev/shm even if a
// process dies later (the mappings keep the memory alive until the last one goes). A rank that
// detaches unlinks it too (a run that fails before every rank attached). A rank killed before
// either leaves the name to the core, which unlinks those of its ranks' pids once they are gone
// (src/addon/cpu-segments.ts), and creating a segment first unlinks those whose creator process
// is gone (a run killed with its core).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "cpu/futex.h"

namespace clab {

constexpr uint64_t kSegMagic = 0x31424c41432d4c43ull;  // "CL-CALB1"
constexpr uint32_t kSegVersion = 1;
constexpr uint32_t kMaxWorld = 64;
constexpr size_t kAbortReasonBytes = 512;

/** What each rank announces for a collective, compared after the first barrier. */
struct OpSig {
  uint32_t kind, dtype, redop;
  int32_t root;
  uint64_t count;
  uint64_t seq;
};

struct alignas(64) SegHeader {
  uint64_t magic;
  uint32_t version;
  uint32_t world;
  uint64_t total_bytes, slot_bytes, mailbox_bytes;
  uint64_t ranks_offset, coll_offset, mbox_offset;
  int32_t creator_pid;
  alignas(64) std::atomic<uint32_t> attached;
  alignas(64) std::atomic<uint32_t> abort_state;  // 0 none, 1 being written, 2 set
  int32_t abort_rank;
  char abort_reason[kAbortReasonBytes];
  BarrierState barrier;
};

struct alignas(64) RankInfo {
  std::atomic<uint32_t> claimed;
  std::atomic<int32_t> pid;
  std::atomic<uint32_t> detached;  // destroy() ran (or the process exited cleanly)
  WaitWord doorbell;               // rung when a mailbox this rank waits on changes
  OpSig sig[2];                    // by parity
};

/** Single-producer single-consumer ring: head written by the sender, tail by the receiver. */
struct MboxCtl {
  alignas(64) std::atomic<uint64_t> head;
  alignas(64) std::atomic<uint64_t> tail;
};

class ShmSegment {
 public:
  /**
   * Creates and initialises a segment; returns its name ("/clab-<pid>-<hex>", pid: this process).
   * First unlinks the segments of creators that are gone.
   */
  static std::string create(uint32_t world, uint64_t slot_bytes, uint64_t mailbox_bytes);
  /** Throws CLAB_INVALID_ARGUMENT unless `name` is one of ours (a single path component). */
  static void validate_name(const std::string& name);

  /** Attaches `rank`; unlinks the name when it is the last of `world` ranks. */
  ShmSegment(const std::string& name, uint32_t rank, uint32_t world);
  ~ShmSegment();
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;

  /** Marks this rank detached, unlinks the name (if still there) and unmaps. Idempotent. */
  void detach();

  SegHeader* hdr() const { return hdr_; }
  RankInfo* rank_info(uint32_t r) const { return reinterpret_cast<RankInfo*>(base_ + hdr_->ranks_offset) + r; }
  uint64_t slot_bytes() const { return hdr_->slot_bytes; }
  uint64_t mailbox_bytes() const { return hdr_->mailbox_bytes; }
  /** Rank r's slot of the collective area of `parity`; r == world is the result area. */
  uint8_t* slot(uint32_t parity, uint32_t r) const {
    return base_ + hdr_->coll_offset + (static_cast<uint64_t>(parity & 1) * (world_ + 1) + r) * hdr_->slot_bytes;
  }
  uint8_t* result(uint32_t parity) const { return slot(parity, world_); }
  MboxCtl* mbox(uint32_t src, uint32_t dst) const {
    return reinterpret_cast<MboxCtl*>(base_ + hdr_->mbox_offset + (static_cast<uint64_t>(src) * world_ + dst) * mbox_stride());
  }
  uint8_t* mbox_data(uint32_t src, uint32_t dst) const { return reinterpret_cast<uint8_t*>(mbox(src, dst)) + sizeof(MboxCtl); }
  const std::string& name() const { return name_; }

 private:
  uint64_t mbox_stride() const { return sizeof(MboxCtl) + hdr_->mailbox_bytes; }

  std::string name_;
  uint32_t rank_, world_;
  uint8_t* base_ = nullptr;
  SegHeader* hdr_ = nullptr;
  size_t size_ = 0;
};

}  // namespace clab
