#include "nccl/nccl_comm.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "nccl/base64.h"
#include "common/clock.h"
#include "data/data_host.h"
#include "common/errors.h"
#include "gpu/gpu_errors.h"

namespace clab {

namespace {

constexpr int kBatch = 1024;                     // repetitions timed per batch of events
// A rank that sleeps while its peers go on starts its next op late, and the others then wait for
// it in NCCL (a skew that lands in timed spans, e.g. after a compare block's barrier): poll
// without sleeping for a while (GPU hosts have cores to spare), then sleep briefly.
constexpr uint64_t kPollSpinNs = 2000000;        // poll without sleeping this long
constexpr useconds_t kMaxSleepUs = 200;          // then sleep at most this long between polls
constexpr uint64_t kNoTicket = std::numeric_limits<uint64_t>::max();
// A gemm's ticket: this bit and the number of communication tickets handed out before it.
constexpr uint64_t kAfterComm = uint64_t{1} << 62;
constexpr uint64_t kAbortGraceNs = 200000000;    // for threads inside an NCCL call to come out

/** CLAB_TRACE set: where a rank's start and end go, on stderr (diagnostics only). */
bool tracing() {
  static const bool on = std::getenv("CLAB_TRACE") != nullptr;
  return on;
}

const gpu::CudaRuntime& need_cudart() {
  std::string why;
  const gpu::CudaRuntime* rt = gpu::load_cudart(&why);
  if (!rt) throw ClabError(ErrCode::SystemError, "the nccl backend needs the CUDA runtime: " + why);
  return *rt;
}

const gpu::NcclLibrary& need_nccl() {
  std::string why;
  const gpu::NcclLibrary* lib = gpu::load_nccl(&why);
  if (!lib) throw ClabError(ErrCode::SystemError, "the nccl backend needs NCCL: " + why);
  return *lib;
}

}  // namespace

std::string NcclComm::create_unique_id() {
  const uint64_t t0 = now_ns();
  const gpu::NcclLibrary& nccl = need_nccl();
  gpu::ncclUniqueId id;
  nccl_check(nccl, nccl.ncclGetUniqueId(&id), "ncclGetUniqueId", 0, nullptr);
  if (tracing()) std::fprintf(stderr, "[trace] rank 0 ncclGetUniqueId: %.1f ms\n", (now_ns() - t0) / 1e6);
  return base64_encode(reinterpret_cast<const uint8_t*>(id.internal), sizeof id.internal);
}

void NcclComm::prepare_device(int device, int rank) {
  const uint64_t t0 = now_ns();
  const gpu::CudaRuntime& rt = need_cudart();
  cuda_check(rt, rt.cudaSetDevice(device), "cudaSetDevice", rank);
  // CUDA 12 and later make the context inside cudaSetDevice; cudaFree(0) makes it with older ones.
  cuda_check(rt, rt.cudaFree(nullptr), "cudaFree(0) (creating the CUDA context)", rank);
  if (tracing())
    std::fprintf(stderr, "[trace] rank %d device %d: the runtime, cudaSetDevice and the context %.1f ms\n", rank, device, (now_ns() - t0) / 1e6);
}

NcclComm::NcclComm(const std::string& id_text, int rank, int world, int device, unsigned priority_streams, bool register_buffers)
    : rt_(&need_cudart()), nccl_(&need_nccl()), rank_(rank), world_(world), device_(device), priority_streams_(priority_streams) {
  gpu::ncclUniqueId id;
  if (!base64_decode(id_text, reinterpret_cast<uint8_t*>(id.internal), sizeof id.internal))
    throw_invalid("id is not an NCCL unique id (base64 of " + std::to_string(sizeof id.internal) + " bytes)");
  if (register_buffers) DeviceMemory::check_registration(*nccl_);  // before joining: every rank refuses alike
  int count = 0;
  cuda_check(*rt_, rt_->cudaGetDeviceCount(&count), "cudaGetDeviceCount", rank_);
  if (device < 0 || device >= count)
    throw_invalid("rank " + std::to_string(rank) + " was given GPU " + std::to_string(device) + " but " +
                  std::to_string(count) + " GPU" + (count == 1 ? " is" : "s are") + " visible");
  use_device();
  char bus[32] = {0};
  if (rt_->cudaDeviceGetPCIBusId(bus, sizeof bus, device) == gpu::cudaSuccess) bus_id_ = bus;
  compute_capability_ = gpu::compute_capability(*rt_, device);
  const uint64_t t0 = now_ns();
  nccl_check(*nccl_, nccl_->ncclCommInitRank(&comm_, world, id, rank), "ncclCommInitRank", rank_, nullptr);
  const uint64_t t1 = now_ns();
  memory_ = std::make_unique<DeviceMemory>(*rt_, device_, rank_);
  if (register_buffers) memory_->register_with(*nccl_, comm_);
  kernels_ = DataKernels::on_device(device_, &kernels_why_);
  const uint64_t t2 = now_ns();
  scratch_ = memory_->acquire(kScratchBytes, "the barrier");
  if (tracing())
    std::fprintf(stderr, "[trace] rank %d joining: ncclCommInitRank %.1f ms, data kernels %.1f ms, scratch %.1f ms\n", rank_, (t1 - t0) / 1e6,
                 (t2 - t1) / 1e6, (now_ns() - t2) / 1e6);
}

NcclComm::~NcclComm() {
  try {
    close();
  } catch (...) {
  }
}

void NcclComm::use_device() const {
  thread_local int current = -1;
  if (current == device_) return;
  cuda_check(*rt_, rt_->cudaSetDevice(device_), "cudaSetDevice", rank_);
  current = device_;
}

NcclComm::StreamState& NcclComm::stream_state(int index) {
  std::unique_ptr<StreamState>& s = streams_[index];
  if (s) return *s;  // only this stream's thread creates or uses it
  auto st = std::make_unique<StreamState>();
  if (priority_streams_ & (1u << index)) {
    // A stream that carries communication only: its kernels go ahead of queued GEMM blocks, as
    // frameworks run NCCL, so an overlapped transfer is not held back until the GEMM finishes.
    int least = 0, greatest = 0;
    cuda_check(*rt_, rt_->cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange", rank_);
    cuda_check(*rt_, rt_->cudaStreamCreateWithPriority(&st->stream, gpu::kCudaStreamNonBlocking, greatest), "cudaStreamCreateWithPriority", rank_);
  } else {
    cuda_check(*rt_, rt_->cudaStreamCreateWithFlags(&st->stream, gpu::kCudaStreamNonBlocking), "cudaStreamCreateWithFlags", rank_);
  }
  cuda_check(*rt_, rt_->cudaEventCreateWithFlags(&st->staged, gpu::kCudaEventDefault), "cudaEventCreateWithFlags", rank_);
  cuda_check(*rt_, rt_->cudaEventCreateWithFlags(&st->reference, gpu::kCudaEventDefault), "cudaEventCreateWithFlags", rank_);
  cuda_check(*rt_, rt_->cudaEventCreateWithFlags(&st->loop_begin, gpu::kCudaEventDefault), "cudaEventCreateWithFlags", rank_);
  cuda_check(*rt_, rt_->cudaEventCreateWithFlags(&st->loop_end, gpu::kCudaEventDefault), "cudaEventCreateWithFlags", rank_);
  s = std::move(st);
  return *s;
}

uint64_t NcclComm::admit(const Op& op) {
  std::lock_guard<std::mutex> lock(turn_mu_);
  if (op.kind == OpKind::Gemm) return kAfterComm | admitted_;
  return admitted_++;
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

void NcclComm::publish_lined_up(uint64_t ticket, gpu::cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(turn_mu_);
  LinedUp& slot = lined_up_[ticket % lined_up_.size()];
  if (!slot.event)
    cuda_check(*rt_, rt_->cudaEventCreateWithFlags(&slot.event, gpu::kCudaEventDisableTiming), "cudaEventCreateWithFlags", rank_);
  cuda_check(*rt_, rt_->cudaEventRecord(slot.event, stream), "cudaEventRecord", rank_);
  slot.ticket = ticket;
}

void NcclComm::wait_lined_up(uint64_t ticket) {
  const uint64_t t0 = now_ns();
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(turn_mu_);  // the slot is not recorded again while it is read
      const LinedUp& slot = lined_up_[ticket % lined_up_.size()];
      // Not published (a barrier, a world of one) or recorded again for a later ticket: nothing to wait for.
      if (slot.ticket != ticket) return;
      const gpu::cudaError_t e = rt_->cudaEventQuery(slot.event);
      if (e == gpu::cudaSuccess) return;
      if (e != gpu::cudaErrorNotReady) throw_cuda(*rt_, e, "waiting for the ranks to line up (cudaEventQuery)", rank_);
    }
    gpu::ncclResult_t async = gpu::ncclSuccess;
    nccl_->ncclCommGetAsyncError(comm_, &async);
    if (async != gpu::ncclSuccess && async != gpu::ncclInProgress)
      throw_nccl(*nccl_, async, "an NCCL operation (ncclCommGetAsyncError)", rank_, comm_);
    if (aborted_.load(std::memory_order_relaxed)) throw_aborted();
    const uint64_t waited = now_ns() - t0;
    if (waited < kPollSpinNs) sched_yield();
    else usleep(static_cast<useconds_t>(std::min<uint64_t>(kMaxSleepUs, waited / 8000)));
  }
}

void NcclComm::check_usable() const {
  if (closed_.load()) throw ClabError(ErrCode::Aborted, "the communicator was destroyed");
  if (aborted_.load()) throw_aborted();
}

void NcclComm::throw_aborted() const {
  std::lock_guard<std::mutex> lock(reason_mu_);
  throw ClabError(ErrCode::Aborted, "rank " + std::to_string(rank_) + ": communicator aborted: " + abort_reason_);
}

// ---- ordering, waiting, timing -------------------------------------------------------------

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

void NcclComm::wait_event(gpu::cudaEvent_t ev, bool spin) {
  const uint64_t t0 = now_ns();
  for (;;) {
    const gpu::cudaError_t e = rt_->cudaEventQuery(ev);
    if (e == gpu::cudaSuccess) return;
    if (e != gpu::cudaErrorNotReady) throw_cuda(*rt_, e, "waiting for the GPU (cudaEventQuery)", rank_);
    gpu::ncclResult_t async = gpu::ncclSuccess;
    nccl_->ncclCommGetAsyncError(comm_, &async);
    if (async != gpu::ncclSuccess && async != gpu::ncclInProgress)
      throw_nccl(*nccl_, async, "an NCCL operation (ncclCommGetAsyncError)", rank_, comm_);
    if (aborted_.load(std::memory_order_relaxed)) throw_aborted();
    const uint64_t waited = now_ns() - t0;
    if (spin || waited < kPollSpinNs) sched_yield();
    else usleep(static_cast<useconds_t>(std::min<uint64_t>(kMaxSleepUs, waited / 8000)));
  }
}

uint64_t NcclComm::reference(StreamState& st) {
  cuda_check(*rt_, rt_->cudaEventRecord(st.staged, st.stream), "cudaEventRecord", rank_);
  wait_event(st.staged, false);  // the stream is idle from here on
  cuda_check(*rt_, rt_->cudaEventRecord(st.reference, st.stream), "cudaEventRecord", rank_);
  wait_event(st.reference, true);
  st.t_ref = now_ns();
  return st.t_ref;
}

uint64_t NcclComm::clock_of(StreamState& st, gpu::cudaEvent_t ev) {
  float ms = 0;
  cuda_check(*rt_, rt_->cudaEventElapsedTime(&ms, st.reference, ev), "cudaEventElapsedTime", rank_);
  return static_cast<uint64_t>(static_cast<double>(st.t_ref) + static_cast<double>(ms) * 1e6);
}

void NcclComm::data_mark(StreamState& st, int i) {
  if (!st.data_marks[i])
    cuda_check(*rt_, rt_->cudaEventCreateWithFlags(&st.data_marks[i], gpu::kCudaEventDefault), "cudaEventCreateWithFlags", rank_);
  cuda_check(*rt_, rt_->cudaEventRecord(st.data_marks[i], st.stream), "cudaEventRecord", rank_);
}

template <class F>
void NcclComm::timed(StreamState& st, int repeat, uint64_t ticket, F enqueue_one, Times& times,
                     const std::function<void()>& align_first, bool spin) {
  std::vector<uint64_t>& start = times.start;
  std::vector<uint64_t>& end = times.end;
  const uint64_t t_ref = reference(st);
  const size_t marks = 2 * static_cast<size_t>(std::min(repeat, kBatch));
  while (st.marks.size() < marks) {
    gpu::cudaEvent_t ev;
    cuda_check(*rt_, rt_->cudaEventCreateWithFlags(&ev, gpu::kCudaEventDefault), "cudaEventCreateWithFlags", rank_);
    st.marks.push_back(ev);
  }
  auto since_ref = [&](gpu::cudaEvent_t ev) {
    float ms = 0;
    cuda_check(*rt_, rt_->cudaEventElapsedTime(&ms, st.reference, ev), "cudaEventElapsedTime", rank_);
    return t_ref + static_cast<uint64_t>(static_cast<double>(ms) * 1e6);
  };
  auto collect = [&](int n) {
    for (int i = 0; i < n; i++) {
      start.push_back(since_ref(st.marks[2 * i]));
      end.push_back(since_ref(st.marks[2 * i + 1]));
    }
  };
  const bool ordered = ticket != kNoTicket;
  if (ordered) wait_turn(ticket);
  int last = 0;
  try {
    // A job of more than one batch keeps its turn throughout, so no rank interleaves another job.
    for (int done = 0; done < repeat; done += last) {
      if (done > 0) {
        wait_event(st.marks[2 * last - 1], false);
        collect(last);
      }
      last = std::min(repeat - done, kBatch);
      in_nccl_++;
      struct Leave { std::atomic<int>& n; ~Leave() { n--; } } leave{in_nccl_};
      if (done == 0 && align_first) align_first();
      if (done == 0 && times.loop_wanted) {
        // nccl-tests' loop: nothing between the repetitions, one event pair around them all.
        // The host's side of it too: a loop the GPU spent waiting for its calls is not the op's time.
        struct rusage before {}, after {};
        getrusage(RUSAGE_THREAD, &before);
        const uint64_t issue0 = now_ns();
        cuda_check(*rt_, rt_->cudaEventRecord(st.loop_begin, st.stream), "cudaEventRecord", rank_);
        for (int i = 0; i < repeat; i++) enqueue_one();
        cuda_check(*rt_, rt_->cudaEventRecord(st.loop_end, st.stream), "cudaEventRecord", rank_);
        times.loop_issue_ns = now_ns() - issue0;
        getrusage(RUSAGE_THREAD, &after);
        times.loop_faults = static_cast<uint64_t>((after.ru_minflt - before.ru_minflt) + (after.ru_majflt - before.ru_majflt));
        times.loop_blocked = static_cast<uint64_t>(after.ru_nvcsw - before.ru_nvcsw);
        times.loop_preempted = static_cast<uint64_t>(after.ru_nivcsw - before.ru_nivcsw);
      }
      for (int i = 0; i < last; i++) {
        cuda_check(*rt_, rt_->cudaEventRecord(st.marks[2 * i], st.stream), "cudaEventRecord", rank_);
        enqueue_one();
        cuda_check(*rt_, rt_->cudaEventRecord(st.marks[2 * i + 1], st.stream), "cudaEventRecord", rank_);
      }
    }
  } catch (const ClabError& e) {
    // The other ranks may now wait for an op this rank never issued: nothing later may run.
    if (ordered) abort(e.what());
    throw;
  }
  if (ordered) end_turn();
  wait_event(st.marks[2 * last - 1], spin);
  collect(last);
  if (times.loop_wanted) {
    times.loop_start = since_ref(st.loop_begin);
    times.loop_end = since_ref(st.loop_end);
  }
}

void NcclComm::execute(const Op& op, int repeat, uint64_t ticket, StreamContext& ctx, Times& times) {
  times.start.clear();
  times.end.clear();
  check_usable();
  use_device();
  StreamState& st = stream_state(ctx.index);
  if (op.kind == OpKind::Gemm) {
    const uint64_t g0 = now_ns();
    const bool fresh = !st.gemm;
    if (!st.gemm) st.gemm = std::make_unique<GpuGemm>(*rt_, *memory_, st.stream, rank_);
    const uint64_t g1 = now_ns();
    st.gemm->prepare(op.dtype, op.m, op.n, op.k);
    if (fresh && tracing())
      std::fprintf(stderr, "[trace] rank %d gemm on stream %d: cuBLAS handle %.1f ms, operands %.1f ms\n", rank_, ctx.index, (g1 - g0) / 1e6,
                   (now_ns() - g1) / 1e6);
    // Launched after the communication enqueued before it has been issued, as one host thread
    // issuing in plan order would, and once that communication has lined its ranks up on the GPU:
    // a late peer would otherwise hold the receive back while the GEMM ran alone and took every
    // SM, and its lag (kept out of every communication's own time) would count against the
    // overlap. The host polls for the line-up and then launches, so the GEMM starts a few µs after
    // the receive; a GPU-side wait (cudaStreamWaitEvent) released both at once, and the GEMM took
    // the SMs first in about half the repeats (the receive then ran ~1.5× slower).
    std::function<void()> after_comm;
    if (ticket != kNoTicket && (ticket & kAfterComm)) {
      const uint64_t before = ticket & ~kAfterComm;
      after_comm = [this, before] {
        wait_issued(before);
        if (before > 0) wait_lined_up(before - 1);
      };
    }
    st.gemm->target_sms(op.sm_count);
    timed(st, repeat, kNoTicket, [&] { st.gemm->issue(); }, times, after_comm, false);
    return;
  }
  Staging own;
  Staging* staging = nullptr;
  {
    std::lock_guard<std::mutex> lock(ahead_mu_);
    auto it = ahead_.find(staging_key(op));
    if (it != ahead_.end()) staging = it->second.get();  // stays until drain(), which copies the output back
  }
  // The data kernels' fill and check are marked on the stream (the timeline shows them), here where
  // an op is staged for itself; a compare block's prestaged ops are made and checked outside its time.
  const bool data = !staging && op_has_data(op);
  if (!staging) {
    try {
      if (data) data_mark(st, 0);
      stage(op, own.root, own, st.stream);
      if (data) data_mark(st, 1);
    } catch (const ClabError& e) {
      abort(e.what());  // this rank will not issue the op its peers wait in
      throw;
    }
  }
  const Staged& bufs = staging ? staging->root : own.root;
  std::function<void()> line_up;
  if (op.kind != OpKind::Barrier && world_ > 1) line_up = [&] {
    align(op, st.stream);
    if (ticket != kNoTicket) publish_lined_up(ticket, st.stream);
  };
  // Every rank leaves a barrier as soon as it completes: one that slept through it would start the
  // next op late (a compare block starts with a barrier; its ops would time that rank's lag).
  timed(st, repeat, ticket, [&] { issue(op, bufs, st.stream); }, times, line_up, op.kind == OpKind::Barrier);
  if (data) data_mark(st, 2);
  if (!staging) copy_back(own, st.stream);
  if (data) data_mark(st, 3);
  cuda_check(*rt_, rt_->cudaStreamSynchronize(st.stream), "cudaStreamSynchronize", rank_);
  if (data) {
    times.data_fill_start = clock_of(st, st.data_marks[0]);
    times.data_fill_end = clock_of(st, st.data_marks[1]);
    times.data_check_start = clock_of(st, st.data_marks[2]);
    times.data_check_end = clock_of(st, st.data_marks[3]);
  }
}

// ---- abort and teardown --------------------------------------------------------------------

void NcclComm::abort(const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(reason_mu_);
    if (aborted_.load()) return;
    abort_reason_ = reason.empty() ? "abort() called" : reason;
    aborted_.store(true);
  }
  { std::lock_guard<std::mutex> lock(turn_mu_); }  // a waiter between its check and its sleep sees the flag
  turn_cv_.notify_all();
  // Waits poll the flag; a thread blocked inside an NCCL call (a connection to a dead peer) only
  // comes out through ncclCommAbort.
  const uint64_t t0 = now_ns();
  while (in_nccl_.load() > 0 && now_ns() - t0 < kAbortGraceNs) usleep(1000);
  if (in_nccl_.load() > 0 && comm_ && !nccl_aborted_.exchange(true)) nccl_->ncclCommAbort(comm_);
}

void NcclComm::close() {
  if (closed_.exchange(true)) return;
  use_device();
  const bool trace = tracing();
  const uint64_t t0 = now_ns();
  // NCCL first: an aborted communicator's kernels end only through ncclCommAbort.
  if (comm_ && !nccl_aborted_.exchange(true)) {
    if (aborted_.load()) nccl_->ncclCommAbort(comm_);
    else nccl_->ncclCommDestroy(comm_);
  }
  comm_ = nullptr;
  if (memory_) memory_->forget_comm();  // its registrations went with it
  const uint64_t t1 = now_ns();
  for (auto& s : streams_) {
    if (!s) continue;
    s->gemm.reset();
    for (gpu::cudaEvent_t ev : s->marks) rt_->cudaEventDestroy(ev);
    rt_->cudaEventDestroy(s->staged);
    rt_->cudaEventDestroy(s->reference);
    rt_->cudaEventDestroy(s->loop_begin);
    rt_->cudaEventDestroy(s->loop_end);
    for (gpu::cudaEvent_t ev : s->data_marks)
      if (ev) rt_->cudaEventDestroy(ev);
    rt_->cudaStreamDestroy(s->stream);
    s.reset();
  }
  for (LinedUp& slot : lined_up_) {
    if (slot.event) rt_->cudaEventDestroy(slot.event);
    slot = LinedUp{};
  }
  {
    std::lock_guard<std::mutex> lock(ahead_mu_);
    ahead_.clear();
  }
  scratch_ = DeviceBlock();
  if (memory_) memory_->free_all();
  if (trace)
    std::fprintf(stderr, "[trace] rank %d close: nccl %.1f ms, streams and memory %.1f ms\n", rank_, (t1 - t0) / 1e6,
                 (now_ns() - t1) / 1e6);
}

}  // namespace clab
