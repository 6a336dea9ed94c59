#include "nccl/gemm_handoff.h"

#include <chrono>
#include <exception>

#include "common/clock.h"

namespace clab {

namespace {

// The waits poll their give-up condition (abort, a ticket that went by) this often.
constexpr auto kRecheck = std::chrono::microseconds(200);

}  // namespace

GemmHandoff::Slot* GemmHandoff::find(uint64_t ticket) {
  Slot& s = slots_[ticket % kSlots];
  return s.ticket == ticket ? &s : nullptr;
}

void GemmHandoff::admitted_comm(uint64_t ticket, int stream, bool hands_off) {
  std::lock_guard<std::mutex> lock(mu_);
  Slot& s = slots_[ticket % kSlots];
  // A slot still offered or running holds a GEMM thread's closure: kSlots tickets later its GEMM
  // has long been released (each block waits for its ops), but never reuse it under a waiter.
  if (s.state == State::Offered || s.state == State::Taken) return;
  s = Slot{};
  s.ticket = ticket;
  s.stream = stream;
  s.hands_off = hands_off;
}

void GemmHandoff::admitted_gemm(uint64_t comms_before, int stream) {
  if (comms_before == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  Slot* s = find(comms_before - 1);
  if (s && s->hands_off && s->stream != stream && s->state == State::None) s->expected = true;
}

bool GemmHandoff::await_offer(uint64_t ticket, uint64_t bound_ns, const std::function<bool()>& give_up) {
  const uint64_t t0 = now_ns();
  for (;;) {
    // Asked without mu_ held: give_up may take its caller's locks.
    const bool stop = now_ns() - t0 >= bound_ns || give_up();
    std::unique_lock<std::mutex> lock(mu_);
    Slot* s = find(ticket);
    if (!s || !s->hands_off) return false;  // the GEMM may not be admitted yet: its enqueuer said it follows
    if (s->state == State::Offered) return true;
    if (s->state != State::None) return false;
    if (stop) {
      s->state = State::Declined;
      cv_.notify_all();
      return false;
    }
    cv_.wait_for(lock, kRecheck);
  }
}

void GemmHandoff::line_up(uint64_t ticket) {
  std::function<void()>* launch = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Slot* s = find(ticket);
    if (!s) return;
    if (s->state == State::None) s->state = State::Declined;
    if (s->state != State::Offered) return;
    s->state = State::Taken;
    launch = s->launch;
  }
  std::exception_ptr error;
  try {
    (*launch)();
  } catch (...) {
    error = std::current_exception();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    Slot* s = find(ticket);
    if (s) {
      s->state = error ? State::Failed : State::Done;
      s->error = error;
      s->launch = nullptr;
    }
  }
  cv_.notify_all();
}

void GemmHandoff::decline(uint64_t ticket) {
  std::lock_guard<std::mutex> lock(mu_);
  Slot* s = find(ticket);
  if (!s || (s->state != State::None && s->state != State::Offered)) return;
  s->state = State::Declined;
  s->launch = nullptr;
  cv_.notify_all();
}

bool GemmHandoff::offer(uint64_t ticket, std::function<void()>* launch) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Slot* s = find(ticket);
    if (!s || !s->expected || s->state != State::None) return false;
    s->state = State::Offered;
    s->launch = launch;
  }
  cv_.notify_all();
  return true;
}

GemmHandoff::Outcome GemmHandoff::wait_launched(uint64_t ticket, const std::function<bool()>& give_up) {
  for (;;) {
    const bool stop = give_up();  // without mu_ held, as in await_offer
    std::unique_lock<std::mutex> lock(mu_);
    Slot* s = find(ticket);
    if (!s) return Outcome::Declined;  // not reachable while offered (admitted_comm keeps the slot)
    switch (s->state) {
      case State::Done: return Outcome::Launched;
      case State::Failed: std::rethrow_exception(s->error);
      case State::Declined:
      case State::None: return Outcome::Declined;
      case State::Offered:
        if (stop) {
          s->state = State::Declined;
          s->launch = nullptr;
          return Outcome::Declined;
        }
        break;
      case State::Taken: break;  // running on the communication's thread now
    }
    cv_.wait_for(lock, kRecheck);
  }
}

}  // namespace clab
