// The nccl backend's communicator: joining it (the unique id, the device, ncclCommInitRank), its
// streams, and leaving it (abort, close). Running an op is nccl_execute.cc, the order of
// communication and the waits nccl_order.cc, staging nccl_staging.cc, the library calls nccl_ops.cc.
#include "nccl/nccl_comm.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "common/clock.h"
#include "common/errors.h"
#include "gpu/gpu_errors.h"
#include "nccl/base64.h"

namespace clab {

namespace {

constexpr uint64_t kAbortGraceNs = 200000000;  // for threads inside an NCCL call to come out

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

bool NcclComm::tracing() {
  static const bool on = std::getenv("CLAB_TRACE") != nullptr;
  return on;
}

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
    std::fprintf(stderr, "[trace] rank %d device %d: the runtime, cudaSetDevice and the context %.1f ms\n", rank, device,
                 (now_ns() - t0) / 1e6);
}

void NcclComm::warm_gemm(int device, int rank, const std::vector<GpuGemm::Shape>& shapes) {
  const uint64_t t0 = now_ns();
  GpuGemm::warm(need_cudart(), device, rank, shapes);
  if (tracing())
    std::fprintf(stderr, "[trace] rank %d device %d: cuBLAS loaded, a handle made and %zu shape%s run once in %.1f ms\n", rank, device,
                 shapes.size(), shapes.size() == 1 ? "" : "s", (now_ns() - t0) / 1e6);
}

NcclComm::NcclComm(const std::string& id_text, int rank, int world, int device, unsigned priority_streams, bool register_buffers,
                   const std::vector<CommSetting>& settings)
    : rt_(&need_cudart()), nccl_(&need_nccl()), rank_(rank), world_(world), device_(device), priority_streams_(priority_streams) {
  p2p_seq_ = std::make_unique<std::atomic<uint64_t>[]>(2 * static_cast<size_t>(world > 0 ? world : 1));  // zeroed
  gpu::ncclUniqueId id;
  if (!base64_decode(id_text, reinterpret_cast<uint8_t*>(id.internal), sizeof id.internal))
    throw_invalid("id is not an NCCL unique id (base64 of " + std::to_string(sizeof id.internal) + " bytes)");
  if (register_buffers) DeviceMemory::check_registration(*nccl_);  // before joining: every rank refuses alike
  int count = 0;
  cuda_check(*rt_, rt_->cudaGetDeviceCount(&count), "cudaGetDeviceCount", rank_);
  if (device < 0 || device >= count)
    throw_invalid("rank " + std::to_string(rank) + " was given GPU " + std::to_string(device) + " but " + std::to_string(count) + " GPU" +
                  (count == 1 ? " is" : "s are") + " visible");
  use_device();
  char bus[32] = {0};
  if (rt_->cudaDeviceGetPCIBusId(bus, sizeof bus, device) == gpu::cudaSuccess) bus_id_ = bus;
  compute_capability_ = gpu::compute_capability(*rt_, device);
  const uint64_t t0 = now_ns();
  nccl_check(*nccl_, nccl_->ncclCommInitRank(&comm_, world, id, rank), "ncclCommInitRank", rank_, nullptr);
  nccl_check(*nccl_, nccl_->ncclGetVersion(&nccl_version_), "ncclGetVersion", rank_, comm_);
  split(settings);
  const uint64_t t1 = now_ns();
  memory_ = std::make_unique<DeviceMemory>(*rt_, device_, rank_);
  memory_->use_nccl(*nccl_);
  if (register_buffers) {
    std::vector<gpu::ncclComm_t> comms{comm_};
    for (const Split& s : splits_)
      if (s.comm) comms.push_back(s.comm);
    memory_->register_with(*nccl_, comms);
  }
  kernels_ = DataKernels::on_device(device_, &kernels_why_);
  const uint64_t t2 = now_ns();
  scratch_ = memory_->acquire(kScratchBytes, "the barrier");
  if (tracing())
    std::fprintf(stderr, "[trace] rank %d joining: ncclCommInitRank %.1f ms, data kernels %.1f ms, scratch %.1f ms\n", rank_,
                 (t1 - t0) / 1e6, (t2 - t1) / 1e6, (now_ns() - t2) / 1e6);
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
  st->index = index;
  if (priority_streams_ & (1u << index)) {
    // A stream that carries communication only: its kernels go ahead of queued GEMM blocks, as
    // frameworks run NCCL, so an overlapped transfer is not held back until the GEMM finishes.
    int least = 0, greatest = 0;
    cuda_check(*rt_, rt_->cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange", rank_);
    cuda_check(*rt_, rt_->cudaStreamCreateWithPriority(&st->stream, gpu::kCudaStreamNonBlocking, greatest), "cudaStreamCreateWithPriority",
               rank_);
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

void NcclComm::check_usable() const {
  if (closed_.load()) throw ClabError(ErrCode::Aborted, "the communicator was destroyed");
  if (aborted_.load()) throw_aborted();
}

void NcclComm::throw_aborted() const {
  std::lock_guard<std::mutex> lock(reason_mu_);
  throw ClabError(ErrCode::Aborted, "rank " + std::to_string(rank_) + ": communicator aborted: " + abort_reason_);
}

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
  if (in_nccl_.load() > 0 && comm_ && !nccl_aborted_.exchange(true)) {
    for (const Split& s : splits_)
      if (s.comm) nccl_->ncclCommAbort(s.comm);
    nccl_->ncclCommAbort(comm_);
  }
}

void NcclComm::close() {
  if (closed_.exchange(true)) return;
  use_device();
  const bool trace = tracing();
  const uint64_t t0 = now_ns();
  // NCCL first: an aborted communicator's kernels end only through ncclCommAbort.
  // ncclCommDestroy is slow: it joins a service thread of NCCL's that sees its stop flag only when
  // its 0.5 s poll times out (0.16–0.6 s measured). So a rank that is done exits without it
  // (exitNow), and a pair's communicator is closed in the background (destroyAsync).
  if (comm_ && !nccl_aborted_.exchange(true)) {
    for (const Split& s : splits_) {
      if (!s.comm) continue;
      if (aborted_.load()) nccl_->ncclCommAbort(s.comm);
      else
        nccl_->ncclCommDestroy(s.comm);
    }
    if (aborted_.load()) nccl_->ncclCommAbort(comm_);
    else
      nccl_->ncclCommDestroy(comm_);
  }
  splits_.clear();
  windows_.clear();  // they went with their communicator
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
  {
    std::lock_guard<std::mutex> lock(peer_buffers_mu_);
    for (const auto& mapped : peer_buffers_) rt_->cudaIpcCloseMemHandle(mapped.second);
    peer_buffers_.clear();
  }
  scratch_ = DeviceBlock();
  ce_flags_ = DeviceBlock();
  if (memory_) memory_->free_all();
  if (trace)
    std::fprintf(stderr, "[trace] rank %d close: nccl %.1f ms, streams and memory %.1f ms\n", rank_, (t1 - t0) / 1e6,
                 (now_ns() - t1) / 1e6);
}

}  // namespace clab
