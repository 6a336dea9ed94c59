#include "data/gpu_clock.h"

#include <string>

#include "common/clock.h"
#include "common/errors.h"
#include "data/data_device.h"
#include "gpu/gpu_errors.h"

namespace clab {

GpuClockSample calibrate_gpu_clock(const gpu::CudaRuntime& rt, int device, int rank, int samples) {
  cuda_check(rt, rt.cudaSetDevice(device), "cudaSetDevice", rank);
  gpu::cudaStream_t stream = nullptr;
  cuda_check(rt, rt.cudaStreamCreateWithFlags(&stream, gpu::kCudaStreamNonBlocking), "cudaStreamCreateWithFlags", rank);
  void* out = nullptr;
  GpuClockSample best{0, 0, ~uint64_t{0}};
  try {
    std::string why;
    const DataKernels* kernels = DataKernels::on_device(device, &why);
    if (!kernels) throw ClabError(ErrCode::SystemError, "the GPU clock cannot be read: " + why);
    cuda_check(rt, rt.cudaMalloc(&out, sizeof(unsigned long long)), "cudaMalloc", rank);
    auto* timer = static_cast<unsigned long long*>(out);
    // The first launch loads the module's code on the GPU: not a sample.
    kernels->globaltimer(stream, timer, rank);
    cuda_check(rt, rt.cudaStreamSynchronize(stream), "cudaStreamSynchronize", rank);
    for (int i = 0; i < samples; i++) {
      const uint64_t t0 = now_ns();
      kernels->globaltimer(stream, timer, rank);
      cuda_check(rt, rt.cudaStreamSynchronize(stream), "cudaStreamSynchronize", rank);
      const uint64_t t1 = now_ns();
      unsigned long long gpu = 0;
      cuda_check(rt, rt.cudaMemcpyAsync(&gpu, timer, sizeof gpu, gpu::cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync", rank);
      cuda_check(rt, rt.cudaStreamSynchronize(stream), "cudaStreamSynchronize", rank);
      if ((t1 - t0) / 2 < best.error_ns) best = GpuClockSample{gpu, t0 + (t1 - t0) / 2, (t1 - t0) / 2};
    }
  } catch (...) {
    if (out) rt.cudaFree(out);
    rt.cudaStreamDestroy(stream);
    throw;
  }
  rt.cudaFree(out);
  rt.cudaStreamDestroy(stream);
  return best;
}

}  // namespace clab
