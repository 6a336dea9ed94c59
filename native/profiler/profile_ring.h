// A bounded ring of records, per process: NCCL's threads (the one that calls the plug-in, its
// proxy thread) push, the addon drains. A full ring drops the newest record and counts it, so
// the plug-in never allocates or blocks NCCL for long.
#pragma once

#include <atomic>
#include <mutex>
#include <vector>

#include "profiler/profile_record.h"

namespace clab {

template <class Record>
class Ring {
 public:
  explicit Ring(size_t capacity) : slots_(capacity) {}

  void push(const Record& r) {
    std::lock_guard<std::mutex> lock(mu_);
    if (size_ == slots_.size()) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    slots_[(head_ + size_) % slots_.size()] = r;
    size_++;
    recorded_.fetch_add(1, std::memory_order_relaxed);
  }

  /** Moves up to `max` records, oldest first, into `out`; returns how many. */
  uint32_t drain(Record* out, uint32_t max) {
    std::lock_guard<std::mutex> lock(mu_);
    uint32_t n = 0;
    for (; n < max && size_ > 0; n++, size_--) {
      out[n] = slots_[head_];
      head_ = (head_ + 1) % slots_.size();
    }
    return n;
  }
  uint64_t recorded() const { return recorded_.load(std::memory_order_relaxed); }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  std::mutex mu_;
  std::vector<Record> slots_;
  size_t head_ = 0, size_ = 0;  // under mu_
  std::atomic<uint64_t> recorded_{0}, dropped_{0};
};

}  // namespace clab
