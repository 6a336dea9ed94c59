// Waiting for NCCL's proxy thread to finish the lab's plug-in events already under way (kernel
// channels and proxy operations started and not yet stopped: clab_profiler_open_events) before a
// timed loop is issued, so that the thread's work for the profiled calls before it (the warm-up's)
// does not run beside the loop. Bounded: it gives up after `budget_ns`, and as soon as the count has
// not gone down for `stall_ns` (an event NCCL never stops). No Node-API, no NCCL, no CUDA here.
#pragma once

#include <time.h>

#include <cstdint>

namespace clab {

struct QuietWait {
  uint64_t waited_ns = 0;
  int64_t open = 0;           // events still open when it returned
  const char* how = "quiet";  // "quiet", "stalled" or "budget"
};

// CLOCK_MONOTONIC, as common/clock.h's now_ns: profiler/ includes nothing outside itself (the
// native layers rule, test/native/layers.test.ts), so it keeps its own.
inline uint64_t quiet_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

/** Polls `open_events()` every `poll_ns` until it reads 0 or less, stalls for `stall_ns`, or `budget_ns` has passed. */
template <class OpenEvents>
QuietWait wait_until_quiet(OpenEvents open_events, uint64_t budget_ns, uint64_t stall_ns, uint64_t poll_ns = 20000) {
  QuietWait w;
  const uint64_t t0 = quiet_now_ns();
  int64_t last = open_events();
  uint64_t last_change = t0;
  for (;;) {
    const uint64_t now = quiet_now_ns();
    w.waited_ns = now - t0;
    w.open = last;
    if (last <= 0) return w;
    if (now - last_change >= stall_ns) {
      w.how = "stalled";
      return w;
    }
    if (w.waited_ns >= budget_ns) {
      w.how = "budget";
      return w;
    }
    const timespec nap{0, static_cast<long>(poll_ns)};
    nanosleep(&nap, nullptr);
    const int64_t open = open_events();
    if (open < last) last_change = quiet_now_ns();
    last = open;
  }
}

}  // namespace clab
