#include "cpu/futex.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

namespace clab {

namespace {
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}
}  // namespace

bool futex_wait(std::atomic<uint32_t>* word, uint32_t expected, int64_t timeout_ns) {
  timespec ts;
  ts.tv_sec = timeout_ns / 1000000000;
  ts.tv_nsec = timeout_ns % 1000000000;
  long rc = syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
  return !(rc == -1 && errno == ETIMEDOUT);
}

void futex_wake(std::atomic<uint32_t>* word, int count) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, count, nullptr, nullptr, 0);
}

void ring(WaitWord* w) {
  // seq_cst on both sides (here: bump, then read sleepers; waiter: add sleeper, then the kernel
  // compares the value) so that a sleeper is never missed.
  w->value.fetch_add(1, std::memory_order_seq_cst);
  if (w->sleepers.load(std::memory_order_seq_cst) != 0) futex_wake(&w->value);
}

void wake_all(WaitWord* w) { futex_wake(&w->value); }

void wait_change(WaitWord* w, uint32_t seen, const WaitCheck& check) {
  if (w->value.load(std::memory_order_acquire) != seen) return;
  uint64_t deadline = 0;
  for (unsigned i = 1;; i++) {
    cpu_relax();
    if (w->value.load(std::memory_order_acquire) != seen) return;
    if ((i & 15) == 0) {
      const uint64_t t = now_ns();
      if (deadline == 0) deadline = t + kSpinNs;
      else if (t >= deadline)
        break;
    }
  }
  check(false);
  for (;;) {
    w->sleepers.fetch_add(1, std::memory_order_seq_cst);
    const bool woken = futex_wait(&w->value, seen, kWaitSliceNs);
    w->sleepers.fetch_sub(1, std::memory_order_relaxed);
    if (w->value.load(std::memory_order_acquire) != seen) return;
    check(!woken);
  }
}

void barrier_wait(BarrierState* b, uint32_t world, const WaitCheck& check) {
  const uint32_t gen = b->gen.value.load(std::memory_order_acquire);
  if (b->arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == world) {
    b->arrived.store(0, std::memory_order_relaxed);
    ring(&b->gen);  // seq_cst bump publishes the reset and every arrival's writes
    return;
  }
  wait_change(&b->gen, gen, check);
}

}  // namespace clab
