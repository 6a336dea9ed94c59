// The order of communication: every rank issues the same sequence whichever stream enqueued it
// (admit()'s tickets, one turn at a time); a GEMM is launched once the communication enqueued
// before it has lined its ranks up; and the waits, which poll the GPU, NCCL's async error and the
// abort flag.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "common/clock.h"
#include "common/errors.h"
#include "gpu/gpu_errors.h"
#include "nccl/nccl_comm.h"

namespace clab {

namespace {

// A rank that sleeps while its peers go on starts its next op late, and the others then wait for
// it in NCCL (a skew that lands in timed spans, e.g. after a compare block's barrier): poll
// without sleeping for a while (GPU hosts have cores to spare), then sleep briefly.
constexpr uint64_t kPollSpinNs = 2000000;  // poll without sleeping this long
constexpr useconds_t kMaxSleepUs = 200;    // then sleep at most this long between polls

}  // namespace

uint64_t NcclComm::admit(const Op& op, int stream, bool gemm_follows) {
  uint64_t ticket;
  {
    std::lock_guard<std::mutex> lock(turn_mu_);
    ticket = op.kind == OpKind::Gemm ? kAfterComm | admitted_ : admitted_++;
  }
  // The handoff's own lock is never taken under turn_mu_ (its waits ask give-up conditions that take turn_mu_).
  if (op.kind == OpKind::Gemm) handoff_.admitted_gemm(ticket & ~kAfterComm, stream);
  else
    handoff_.admitted_comm(ticket, stream, gemm_follows && gemm_release() == GemmRelease::Handoff && world_ > 1 && runs_no_kernel(op));
  return ticket;
}

bool NcclComm::runs_no_kernel(const Op& op) const {
  if (!op_has_copy_engine(op) || !copy_memops()) return false;
  for (const Op& child : op.ops)
    if (!op_has_copy_engine(child)) return false;
  return true;
}

void NcclComm::wait_turn(uint64_t ticket) {
  std::unique_lock<std::mutex> lock(turn_mu_);
  turn_cv_.wait(lock, [&] { return turn_ == ticket || aborted_.load(); });
  if (aborted_.load()) {
    lock.unlock();
    throw_aborted();
  }
}

void NcclComm::end_turn() {
  {
    std::lock_guard<std::mutex> lock(turn_mu_);
    turn_++;
  }
  turn_cv_.notify_all();
}

void NcclComm::wait_issued(uint64_t tickets) {
  // Polled for a while first: a thread woken through the condition variable comes back tens of µs late.
  for (const uint64_t t0 = now_ns(); now_ns() - t0 < kPollSpinNs; sched_yield()) {
    std::lock_guard<std::mutex> lock(turn_mu_);
    if (turn_ >= tickets || aborted_.load()) break;
  }
  std::unique_lock<std::mutex> lock(turn_mu_);
  turn_cv_.wait(lock, [&] { return turn_ >= tickets || aborted_.load(); });
  if (aborted_.load()) {
    lock.unlock();
    throw_aborted();
  }
}

void NcclComm::publish_lined_up(uint64_t ticket, gpu::cudaStream_t stream, bool uses_no_sm) {
  std::lock_guard<std::mutex> lock(turn_mu_);
  LinedUp& slot = lined_up_[ticket % lined_up_.size()];
  if (!slot.event)
    cuda_check(*rt_, rt_->cudaEventCreateWithFlags(&slot.event, gpu::kCudaEventDisableTiming), "cudaEventCreateWithFlags", rank_);
  cuda_check(*rt_, rt_->cudaEventRecord(slot.event, stream), "cudaEventRecord", rank_);
  slot.ticket = ticket;
  slot.uses_no_sm = uses_no_sm;
}

/**
 * How a GEMM behind a transfer that runs no kernel is released at that transfer's line-up
 * (CLAB_GEMM_RELEASE): by the thread that lines the transfer up, which launches it there
 * (`handoff`, the default: gemm_handoff.h); by the GEMM's own thread, which polls the line-up's
 * event and then launches it (`host`); or by its stream waiting for that event on the GPU (`gpu`).
 * Five runs of the last two on 2 × H200 (2026-11-28, bench/gpu/README.md): the GEMM began 9–23 µs
 * into the block by the host, 11–15 µs by the GPU, and 125 µs in one repeat of a later run where
 * the GEMM's thread had slept.
 */
NcclComm::GemmRelease NcclComm::gemm_release() {
  static const GemmRelease how = [] {
    const char* v = std::getenv("CLAB_GEMM_RELEASE");
    const std::string named = v ? v : "";
    return named == "host" ? GemmRelease::Host : named == "gpu" ? GemmRelease::Gpu : GemmRelease::Handoff;
  }();
  return how;
}

void NcclComm::wait_before_gemm(uint64_t tickets, gpu::cudaStream_t gemm_stream) {
  if (tickets == 0) return;
  const uint64_t last = tickets - 1;
  // Released at the line-up of a last op that runs no kernel: waiting for its issue as well kept
  // the GEMM 16–20 µs behind a copy-engine receive (overlap-gpu, 2 × H200). Such an op takes no SM,
  // so with CLAB_GEMM_RELEASE=gpu the GEMM is queued behind the line-up on the GPU itself (its
  // stream waits for the event, cudaStreamWaitEvent) rather than launched once the host sees it;
  // behind an NCCL kernel the host releases it once that kernel is issued. Polled as
  // wait_issued is; the slot can only hold `last` once every ticket before it has been issued.
  for (const uint64_t t0 = now_ns(); now_ns() - t0 < kPollSpinNs; sched_yield()) {
    std::lock_guard<std::mutex> lock(turn_mu_);
    if (turn_ >= tickets || aborted_.load()) break;
    const LinedUp& slot = lined_up_[last % lined_up_.size()];
    if (slot.ticket != last || !slot.uses_no_sm) continue;
    if (gemm_release() == GemmRelease::Gpu) {
      cuda_check(*rt_, rt_->cudaStreamWaitEvent(gemm_stream, slot.event, 0), "cudaStreamWaitEvent (the GEMM behind the line-up)", rank_);
      return;
    }
    if (completed(slot.event, "waiting for the ranks to line up (cudaEventQuery)")) return;
  }
  wait_issued(tickets);
  wait_lined_up(last);
}

bool NcclComm::gemm_handed_off(uint64_t last, StreamState& st, Times& times) {
  reference(st);  // this stream is idle: its clock is read before anything is offered
  ensure_marks(st, 2);
  // Run by the transfer's thread right after its ranks line up (the device is current there too).
  std::function<void()> launch = [&] {
    cuda_check(*rt_, rt_->cudaEventRecord(st.marks[0], st.stream), "cudaEventRecord", rank_);
    st.gemm->issue();
    cuda_check(*rt_, rt_->cudaEventRecord(st.marks[1], st.stream), "cudaEventRecord", rank_);
  };
  if (!handoff_.offer(last, &launch)) return false;
  const auto gone_by = [this, last] {
    std::lock_guard<std::mutex> lock(turn_mu_);
    return turn_ > last || aborted_.load();
  };
  if (handoff_.wait_launched(last, gone_by) != GemmHandoff::Outcome::Launched) return false;
  wait_event(st.marks[1], false);
  times.start.push_back(clock_of(st, st.marks[0]));
  times.end.push_back(clock_of(st, st.marks[1]));
  return true;
}

void NcclComm::wait_lined_up(uint64_t ticket) {
  poll_until(
      [&] {
        std::lock_guard<std::mutex> lock(turn_mu_);  // the slot is not recorded again while it is read
        const LinedUp& slot = lined_up_[ticket % lined_up_.size()];
        // Not published (a barrier, a world of one) or recorded again for a later ticket: nothing to wait for.
        return slot.ticket != ticket || completed(slot.event, "waiting for the ranks to line up (cudaEventQuery)");
      },
      false);
}

void NcclComm::wait_event(gpu::cudaEvent_t ev, bool spin) {
  poll_until([&] { return completed(ev, "waiting for the GPU (cudaEventQuery)"); }, spin);
}

bool NcclComm::completed(gpu::cudaEvent_t ev, const char* waiting_for) const {
  const gpu::cudaError_t e = rt_->cudaEventQuery(ev);
  if (e == gpu::cudaSuccess) return true;
  if (e != gpu::cudaErrorNotReady) throw_cuda(*rt_, e, waiting_for, rank_);
  return false;
}

void NcclComm::poll_until(const std::function<bool()>& done, bool spin) {
  const uint64_t t0 = now_ns();
  while (!done()) {
    for (size_t i = 0; i <= splits_.size(); i++) {  // the run's communicator, then those split off it
      const gpu::ncclComm_t c = i == 0 ? comm_ : splits_[i - 1].comm;
      if (!c) continue;
      gpu::ncclResult_t async = gpu::ncclSuccess;
      nccl_->ncclCommGetAsyncError(c, &async);
      if (async != gpu::ncclSuccess && async != gpu::ncclInProgress)
        throw_nccl(*nccl_, async, "an NCCL operation (ncclCommGetAsyncError)", rank_, c);
    }
    if (aborted_.load(std::memory_order_relaxed)) throw_aborted();
    const uint64_t waited = now_ns() - t0;
    if (spin || waited < kPollSpinNs) sched_yield();
    else
      usleep(static_cast<useconds_t>(std::min<uint64_t>(kMaxSleepUs, waited / 8000)));
  }
}

}  // namespace clab
