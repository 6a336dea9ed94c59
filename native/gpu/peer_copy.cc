#include "gpu/peer_copy.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "common/clock.h"
#include "common/errors.h"
#include "gpu/gpu_errors.h"

namespace clab {

namespace {

constexpr unsigned char kPattern = 0x5a;
constexpr size_t kCheckBytes = 1 << 16;  // read back from each end of the destination

const gpu::CudaRuntime& runtime() {
  std::string why;
  const gpu::CudaRuntime* rt = gpu::load_cudart(&why);
  if (!rt) throw ClabError(ErrCode::SystemError, "a peer copy needs the CUDA runtime: " + why);
  return *rt;
}

/** Frees what the copy made, on every path out (errors included), on the device it was made on. */
struct Made {
  Made(const gpu::CudaRuntime& r, int d, int p) : rt(r), device(d), peer(p) {}
  const gpu::CudaRuntime& rt;
  int device, peer;
  void* src = nullptr;
  void* dst = nullptr;
  gpu::cudaStream_t stream = nullptr;
  std::vector<gpu::cudaEvent_t> events;
  bool enabled_peer_access = false;
  ~Made() {
    rt.cudaSetDevice(device);
    if (stream) rt.cudaStreamSynchronize(stream);
    for (gpu::cudaEvent_t e : events) rt.cudaEventDestroy(e);
    if (stream) rt.cudaStreamDestroy(stream);
    if (src) rt.cudaFree(src);
    if (enabled_peer_access) rt.cudaDeviceDisablePeerAccess(peer);
    if (dst) {
      rt.cudaSetDevice(peer);
      rt.cudaFree(dst);
      rt.cudaSetDevice(device);
    }
    rt.cudaGetLastError();
  }
};

}  // namespace

PeerCopyResult peer_copy_gpu(int device, int peer, size_t bytes, int warmup, int iters, int rank) {
  const gpu::CudaRuntime& rt = runtime();
  Made m(rt, device, peer);
  PeerCopyResult r;
  // The destination lives on the peer's GPU: this process makes a context there too.
  cuda_check(rt, rt.cudaSetDevice(peer), "cudaSetDevice (the peer's GPU)", rank);
  cuda_check(rt, rt.cudaMalloc(&m.dst, std::max<size_t>(bytes, 1)), "cudaMalloc (on the peer's GPU)", rank);
  cuda_check(rt, rt.cudaMemsetAsync(m.dst, 0, bytes, nullptr), "cudaMemsetAsync", rank);
  cuda_check(rt, rt.cudaSetDevice(device), "cudaSetDevice", rank);
  int can = 0;
  if (peer != device) cuda_check(rt, rt.cudaDeviceCanAccessPeer(&can, device, peer), "cudaDeviceCanAccessPeer", rank);
  if (can) {
    const gpu::cudaError_t e = rt.cudaDeviceEnablePeerAccess(peer, 0);
    if (e == gpu::cudaSuccess) m.enabled_peer_access = true;
    else if (e == gpu::cudaErrorPeerAccessAlreadyEnabled)
      rt.cudaGetLastError();  // NCCL enabled it: it stays
    else
      throw_cuda(rt, e, "cudaDeviceEnablePeerAccess", rank);
  }
  r.how = peer == device ? "cudaMemcpyPeerAsync within one GPU (both ranks on it)"
          : can          ? "cudaMemcpyPeerAsync (copy engine, peer access)"
                         : "cudaMemcpyPeerAsync (copy engine, staged through the host: no peer access)";
  cuda_check(rt, rt.cudaMalloc(&m.src, std::max<size_t>(bytes, 1)), "cudaMalloc", rank);
  cuda_check(rt, rt.cudaStreamCreateWithFlags(&m.stream, gpu::kCudaStreamNonBlocking), "cudaStreamCreateWithFlags", rank);
  cuda_check(rt, rt.cudaMemsetAsync(m.src, kPattern, bytes, m.stream), "cudaMemsetAsync", rank);
  m.events.resize(1 + 2 * static_cast<size_t>(iters));
  for (gpu::cudaEvent_t& e : m.events) cuda_check(rt, rt.cudaEventCreateWithFlags(&e, gpu::kCudaEventDefault), "cudaEventCreate", rank);
  for (int i = 0; i < warmup; i++)
    cuda_check(rt, rt.cudaMemcpyPeerAsync(m.dst, peer, m.src, device, bytes, m.stream), "cudaMemcpyPeerAsync", rank);
  // The reference event maps the GPU's clock onto the host's: recorded, waited for, read.
  cuda_check(rt, rt.cudaEventRecord(m.events[0], m.stream), "cudaEventRecord", rank);
  cuda_check(rt, rt.cudaStreamSynchronize(m.stream), "cudaStreamSynchronize", rank);
  const uint64_t reference_ns = now_ns();
  for (int i = 0; i < iters; i++) {
    cuda_check(rt, rt.cudaEventRecord(m.events[1 + 2 * i], m.stream), "cudaEventRecord", rank);
    cuda_check(rt, rt.cudaMemcpyPeerAsync(m.dst, peer, m.src, device, bytes, m.stream), "cudaMemcpyPeerAsync", rank);
    cuda_check(rt, rt.cudaEventRecord(m.events[2 + 2 * i], m.stream), "cudaEventRecord", rank);
  }
  cuda_check(rt, rt.cudaStreamSynchronize(m.stream), "cudaStreamSynchronize (the timed copies)", rank);
  for (int i = 0; i < iters; i++) {
    float start_ms = 0, end_ms = 0;
    cuda_check(rt, rt.cudaEventElapsedTime(&start_ms, m.events[0], m.events[1 + 2 * i]), "cudaEventElapsedTime", rank);
    cuda_check(rt, rt.cudaEventElapsedTime(&end_ms, m.events[0], m.events[2 + 2 * i]), "cudaEventElapsedTime", rank);
    r.start_ns.push_back(reference_ns + static_cast<uint64_t>(start_ms * 1e6));
    r.end_ns.push_back(reference_ns + static_cast<uint64_t>(end_ms * 1e6));
  }
  // Did the bytes arrive? Both ends of the destination, read back to the host.
  std::vector<unsigned char> back(std::min(bytes, kCheckBytes));
  for (const size_t at : {size_t{0}, bytes - back.size()}) {
    cuda_check(rt, rt.cudaMemcpyAsync(back.data(), static_cast<char*>(m.dst) + at, back.size(), gpu::cudaMemcpyDeviceToHost, m.stream),
               "cudaMemcpyAsync (reading the copy back)", rank);
    cuda_check(rt, rt.cudaStreamSynchronize(m.stream), "cudaStreamSynchronize", rank);
    r.checked += back.size();
    r.wrong += static_cast<uint64_t>(std::count_if(back.begin(), back.end(), [](unsigned char c) { return c != kPattern; }));
    if (back.size() == bytes) break;
  }
  return r;
}

PeerCopyResult peer_copy_cpu(size_t bytes, int warmup, int iters) {
  PeerCopyResult r;
  r.how = "memcpy between two host buffers";
  std::unique_ptr<unsigned char[]> src(new unsigned char[std::max<size_t>(bytes, 1)]);
  std::unique_ptr<unsigned char[]> dst(new unsigned char[std::max<size_t>(bytes, 1)]);
  std::memset(src.get(), kPattern, bytes);
  std::memset(dst.get(), 0, bytes);
  for (int i = 0; i < warmup; i++) std::memcpy(dst.get(), src.get(), bytes);
  for (int i = 0; i < iters; i++) {
    r.start_ns.push_back(now_ns());
    std::memcpy(dst.get(), src.get(), bytes);
    r.end_ns.push_back(now_ns());
  }
  r.checked = bytes;
  r.wrong = static_cast<uint64_t>(std::count_if(dst.get(), dst.get() + bytes, [](unsigned char c) { return c != kPattern; }));
  return r;
}

}  // namespace clab
