// Sleeping waits on 32-bit words in shared memory (SYS_futex, shared — not FUTEX_PRIVATE), the
// doorbell pattern and a central sense-counting barrier. Waits spin at most kSpinNs before they
// sleep, and sleep at most kWaitSliceNs at a time so that the caller can re-check abort flags.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "common/clock.h"

namespace clab {

constexpr int64_t kSpinNs = 2000;            // brief spin before sleeping
constexpr int64_t kWaitSliceNs = 100000000;  // 100 ms: re-check abort/liveness this often

/** Sleeps while *word == expected, at most timeout_ns. Returns false on timeout. */
bool futex_wait(std::atomic<uint32_t>* word, uint32_t expected, int64_t timeout_ns);
void futex_wake(std::atomic<uint32_t>* word, int count = 0x7fffffff);

/** A futex word with a count of sleepers, so that wakers skip the syscall when nobody sleeps. */
struct alignas(64) WaitWord {
  std::atomic<uint32_t> value;
  std::atomic<uint32_t> sleepers;
};

/** Bumps the word and wakes its sleepers (a doorbell ring). */
void ring(WaitWord* w);
/** Wakes sleepers without changing the word (they re-check their conditions, e.g. an abort flag). */
void wake_all(WaitWord* w);

/**
 * Called after every sleep slice with timed_out = true when the slice ran out: throws to stop
 * waiting (abort, dead peer). Also called with false after spurious or real wakes.
 */
using WaitCheck = std::function<void(bool timed_out)>;

/** Waits until w->value != seen: spins up to kSpinNs, then sleeps in kWaitSliceNs slices. */
void wait_change(WaitWord* w, uint32_t seen, const WaitCheck& check);

struct alignas(64) BarrierState {
  std::atomic<uint32_t> arrived;
  char pad[60];
  WaitWord gen;  // generation: bumped by the last rank to arrive
};

/** All `world` participants arrive; the last one releases the others. */
void barrier_wait(BarrierState* b, uint32_t world, const WaitCheck& check);

}  // namespace clab
