// The test-only module's play of a GEMM handed off to the transfer it overlaps (nccl/gemm_handoff.h):
// the real class between two real threads, the transfer's and the GEMM's, with the CUDA calls of the
// launch left out (it logs which thread ran it, and when).
#include <napi.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "binding/test_hooks.h"
#include "common/clock.h"
#include "common/errors.h"
#include "nccl/gemm_handoff.h"

namespace clab::test_hooks {

namespace {

void sleep_ms(int64_t ms) {
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

int64_t get_ms(const Napi::Object& o, const char* key, int64_t fallback) {
  const Napi::Value v = o.Get(key);
  if (v.IsUndefined()) return fallback;
  if (!v.IsNumber()) throw_invalid(std::string("handoffPlay: ") + key + " must be a number");
  const int64_t ms = v.As<Napi::Number>().Int64Value();
  if (ms < 0 || ms > 2000) throw_invalid(std::string("handoffPlay: ") + key + " must be 0…2000 ms");
  return ms;
}

bool get_bool(const Napi::Object& o, const char* key, bool fallback) {
  const Napi::Value v = o.Get(key);
  if (v.IsUndefined()) return fallback;
  if (!v.IsBoolean()) throw_invalid(std::string("handoffPlay: ") + key + " must be a boolean");
  return v.As<Napi::Boolean>().Value();
}

}  // namespace

// handoffPlay({ handsOff, sameStream, gemmAfterMs, boundMs, transferFails, launchThrows, transferLate, giveUpAfterMs }):
// ticket 0 is a transfer on stream 1 (its enqueuer says a GEMM follows where handsOff), then a GEMM on
// stream 2 (1 with sameStream). The transfer's thread waits for the offer (boundMs), lines up and
// runs the launch, or fails before lining up (transferFails: it only declines); with transferLate it
// lines up only after giveUpAfterMs. The GEMM's thread offers after gemmAfterMs and waits; it gives up
// after giveUpAfterMs. Returns who launched the GEMM and what each side saw.
Napi::Value HandoffPlay(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  try {
    if (info.Length() < 1 || !info[0].IsObject()) throw_invalid("handoffPlay: expected an options object");
    const Napi::Object o = info[0].As<Napi::Object>();
    const bool hands_off = get_bool(o, "handsOff", true);
    const bool same_stream = get_bool(o, "sameStream", false);
    const bool transfer_fails = get_bool(o, "transferFails", false);
    const bool launch_throws = get_bool(o, "launchThrows", false);
    const bool transfer_late = get_bool(o, "transferLate", false);
    const int64_t gemm_after = get_ms(o, "gemmAfterMs", 0);
    const int64_t bound = get_ms(o, "boundMs", 200);
    const int64_t give_up_after = get_ms(o, "giveUpAfterMs", 1000);

    GemmHandoff h;
    h.admitted_comm(0, 1, hands_off);
    h.admitted_gemm(1, same_stream ? 1 : 2);

    std::atomic<int> launched_by{0};  // 1: the transfer's thread, 2: the GEMM's
    std::atomic<uint64_t> launched_at{0}, lined_up_at{0};
    bool awaited = false, offered = false;
    std::string outcome, error;
    const uint64_t t0 = now_ns();

    std::thread transfer([&] {
      if (transfer_fails) {
        sleep_ms(gemm_after + 20);
        h.decline(0);
        return;
      }
      awaited = h.await_offer(0, static_cast<uint64_t>(bound) * 1000000, [] { return false; });
      if (transfer_late) sleep_ms(give_up_after + 50);
      lined_up_at = now_ns();
      h.line_up(0);
      h.decline(0);  // as on the way out of the op: nothing once the launch ran
    });
    std::thread gemm([&] {
      sleep_ms(gemm_after);
      std::function<void()> launch = [&] {
        if (launch_throws) throw ClabError("cudaErrorLaunchFailure", "cudaEventRecord failed (played)");
        launched_by = 1;
        launched_at = now_ns();
      };
      offered = h.offer(0, &launch);
      bool mine = !offered;
      if (offered) {
        try {
          const auto gave_up = [&] { return now_ns() - t0 > static_cast<uint64_t>(give_up_after) * 1000000; };
          mine = h.wait_launched(0, gave_up) == GemmHandoff::Outcome::Declined;
          outcome = mine ? "declined" : "launched";
        } catch (const ClabError& e) {
          outcome = "failed";
          error = std::string(e.code_name()) + ": " + e.what();
          return;
        }
      } else {
        outcome = "not offered";
      }
      if (mine) {
        launched_by = 2;
        launched_at = now_ns();
      }
    });
    transfer.join();
    gemm.join();

    Napi::Object result = Napi::Object::New(env);
    result.Set("awaited", awaited);
    result.Set("offered", offered);
    result.Set("outcome", outcome);
    result.Set("launchedBy", launched_by.load() == 1 ? "transfer" : launched_by.load() == 2 ? "gemm" : "nobody");
    if (!error.empty()) result.Set("error", error);
    // Where the transfer's thread launched it: how long after lining up (µs).
    if (launched_by.load() == 1) result.Set("afterLineUpUs", (static_cast<double>(launched_at.load()) - lined_up_at.load()) / 1e3);
    result.Set("ms", (now_ns() - t0) / 1e6);
    return result;
  } catch (const ClabError& e) {
    Napi::Error err = Napi::Error::New(env, e.what());
    err.Set("code", e.code_name());
    throw err;
  }
}

}  // namespace clab::test_hooks
