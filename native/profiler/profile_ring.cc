#include "profiler/profile_ring.h"

namespace clab {

void ProfileRing::push(const ProfileRecord& r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (size_ == slots_.size()) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  slots_[(head_ + size_) % slots_.size()] = r;
  size_++;
  recorded_.fetch_add(1, std::memory_order_relaxed);
}

uint32_t ProfileRing::drain(ProfileRecord* out, uint32_t max) {
  std::lock_guard<std::mutex> lock(mu_);
  uint32_t n = 0;
  for (; n < max && size_ > 0; n++, size_--) {
    out[n] = slots_[head_];
    head_ = (head_ + 1) % slots_.size();
  }
  return n;
}

}  // namespace clab
