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
  /** A multiply's dtype and shape. */
  struct Shape {
    Dtype dtype;
    uint64_t m, n, k;
  };
  /**
   * cuBLAS's one-time set-up ahead of the first GpuGemm, from any thread: loads it and makes a
   * handle on `device`, runs each of `shapes` once on scratch buffers of its own (never read), so
   * that the kernels cuBLAS picks for them are loaded, then drops it all (the library, its
   * per-device state and the loaded kernels stay). A shape whose buffers the GPU cannot hold is
   * left for its step.
   */
  static void warm(const gpu::CudaRuntime& rt, int device, int rank, const std::vector<Shape>& shapes);
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
  /** C = A·B of row-major operands on `handle`'s stream. */
  static void multiply(const gpu::CublasLibrary& blas, gpu::cublasHandle_t handle, Dtype dtype, uint64_t m, uint64_t n, uint64_t k,
                       const void* a, const void* b, void* c, int rank);
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
