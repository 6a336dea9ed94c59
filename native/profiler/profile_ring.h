// A bounded ring of profile records, per process: NCCL's threads (the one that calls it, its
// proxy thread) push, the addon drains. A full ring drops the newest record and counts it, so
// the plug-in never allocates or blocks NCCL for long.
#pragma once

#include <atomic>
#include <mutex>
#include <vector>

#include "profiler/profile_record.h"

namespace clab {

class ProfileRing {
 public:
  explicit ProfileRing(size_t capacity) : slots_(capacity) {}

  void push(const ProfileRecord& r);
  /** Moves up to `max` records, oldest first, into `out`; returns how many. */
  uint32_t drain(ProfileRecord* out, uint32_t max);
  uint64_t recorded() const { return recorded_.load(std::memory_order_relaxed); }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  std::mutex mu_;
  std::vector<ProfileRecord> slots_;
  size_t head_ = 0, size_ = 0;  // under mu_
  std::atomic<uint64_t> recorded_{0}, dropped_{0};
};

}  // namespace clab
