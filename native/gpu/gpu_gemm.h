// The compute stand-in on a GPU: C[m×n] = A[m×k]·B[k×n] with cublasGemmEx on one stream, the
// operands of gemm.h (deterministic, row-major) in device buffers of the communicator. float16,
// bfloat16 and float32 compute in float32 (CUBLAS_COMPUTE_32F), float64 in float64. No Node-API.
#pragma once

#include <cstdint>
#include <vector>

#include "common/dtype.h"
#include "gpu/device_memory.h"
#include "gpu/gpu_loader.h"

namespace clab {

class GpuGemm {
 public:
  /**
   * cuBLAS's one-time set-up ahead of the first GpuGemm, from any thread: loads it and makes a
   * handle on `device`, then drops it (the library and its per-device state stay).
   */
  static void warm(const gpu::CudaRuntime& rt, int device, int rank);
  /** Loads cuBLAS (throws naming the missing library) and binds a handle to `stream`. */
  GpuGemm(const gpu::CudaRuntime& rt, DeviceMemory& memory, gpu::cudaStream_t stream, int rank);
  ~GpuGemm();
  GpuGemm(const GpuGemm&) = delete;
  GpuGemm& operator=(const GpuGemm&) = delete;

  /** Uploads the operands when the shape or dtype changed (untimed; waits for the copy). */
  void prepare(Dtype dtype, uint64_t m, uint64_t n, uint64_t k);
  /** The SMs the next multiplies target (cublasSetSmCountTarget): 0 for all the GPU has. */
  void target_sms(int sm_count);
  /** Enqueues one multiply of the prepared shape on the stream. */
  void issue();
  /** C on the device (m×n elements of the prepared dtype). */
  const uint8_t* result() const { return c_.get(); }

 private:
  /** Copies `head` (the first `period` rows, or all where fewer) to `dst` and repeats it to `rows` rows on the stream. */
  void repeat_rows(uint8_t* dst, const std::vector<uint8_t>& head, uint64_t period, uint64_t rows, uint64_t row_bytes, const char* what);

  const gpu::CudaRuntime& rt_;
  const gpu::CublasLibrary* blas_ = nullptr;
  DeviceMemory& memory_;
  gpu::cudaStream_t stream_;
  int rank_;
  gpu::cublasHandle_t handle_ = nullptr;
  Dtype dtype_ = Dtype::Float32;
  uint64_t m_ = 0, n_ = 0, k_ = 0;
  int sm_count_ = 0;
  DeviceBlock a_, b_, c_;
};

}  // namespace clab
