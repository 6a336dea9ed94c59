// A GEMM overlapped with a receive that runs no kernel (a copy engine's, ended by stream memory
// operations) is launched by the thread that lines that receive up, right at its line-up, rather
// than by its own stream's thread once that thread has seen the line-up: seen from another thread,
// the GEMM began 8–10 µs after the receive in most repeats and 125 µs in one of five, where its
// thread had slept (overlap-gpu, 2 × H200, 2026-11-28). The GEMM's thread makes everything ready
// and offers the launch; the receive's thread waits (bounded) for that offer before it lines up, and
// runs it as the ranks have lined up. No CUDA here: the launch is the GEMM thread's closure.
#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>

namespace clab {

class GemmHandoff {
 public:
  /** How the handoff of one communication ticket ended, as its GEMM's thread learns it. */
  enum class Outcome { Launched, Declined };

  /**
   * JS thread (admit), in enqueue order: communication ticket `ticket` on `stream`. Where
   * `hands_off` (it runs no kernel, and its enqueuer said a GEMM on another stream follows it), the
   * next GEMM admitted on another stream is expected to offer its launch.
   */
  void admitted_comm(uint64_t ticket, int stream, bool hands_off);
  /** JS thread (admit): a GEMM on `stream`, enqueued after `comms_before` communication tickets. */
  void admitted_gemm(uint64_t comms_before, int stream);

  /**
   * The communication's thread, before lining up: where `ticket` hands a GEMM off, waits up to
   * `bound_ns` for its offer (or `give_up`, e.g. abort). After the bound the offer is refused and
   * the GEMM launches itself. Returns whether an offer waits.
   */
  bool await_offer(uint64_t ticket, uint64_t bound_ns, const std::function<bool()>& give_up);
  /**
   * The communication's thread, once its ranks have lined up: runs the offered launch, if any (its
   * error goes to the GEMM's thread). Any later offer for `ticket` is refused. Never throws.
   */
  void line_up(uint64_t ticket);
  /** The communication's thread, on every way out of the op: an offer not taken is refused. */
  void decline(uint64_t ticket);

  /**
   * The GEMM's thread: offers `launch` for the line-up of ticket `ticket`. false: not expected, or
   * too late (the ticket lined up already): the GEMM launches itself. `launch` must stay alive until
   * wait_launched() returns.
   */
  bool offer(uint64_t ticket, std::function<void()>* launch);
  /**
   * The GEMM's thread, after offer() returned true: waits until the launch ran (Launched), or was
   * refused or withdrawn because `give_up` said so while it was still waiting (Declined: the GEMM
   * launches itself). Rethrows the launch's exception.
   */
  Outcome wait_launched(uint64_t ticket, const std::function<bool()>& give_up);

  /** The slots kept (tickets are reused modulo this). */
  static constexpr size_t kSlots = 64;

 private:
  enum class State { None, Offered, Taken, Done, Failed, Declined };
  struct Slot {
    uint64_t ticket = ~uint64_t{0};
    int stream = -1;
    bool hands_off = false;  // its enqueuer said a GEMM follows
    bool expected = false;   // that GEMM was admitted, on another stream
    State state = State::None;
    std::function<void()>* launch = nullptr;
    std::exception_ptr error;
  };
  /** The slot of `ticket` if it still holds that ticket, else nullptr. Under mu_. */
  Slot* find(uint64_t ticket);

  std::mutex mu_;
  std::condition_variable cv_;
  std::array<Slot, kSlots> slots_{};
};

}  // namespace clab
