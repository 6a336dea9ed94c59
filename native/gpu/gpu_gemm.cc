#include "gpu/gpu_gemm.h"

#include <vector>

#include "common/errors.h"
#include "common/gemm.h"
#include "gpu/gpu_errors.h"

namespace clab {

namespace {

gpu::cudaDataType cuda_type(Dtype d) {
  switch (d) {
    case Dtype::Float16: return gpu::CUDA_R_16F;
    case Dtype::BFloat16: return gpu::CUDA_R_16BF;
    case Dtype::Float64: return gpu::CUDA_R_64F;
    default: return gpu::CUDA_R_32F;
  }
}

void blas_check(const gpu::CublasLibrary& blas, gpu::cublasStatus_t s, const char* call, int rank) {
  if (s == gpu::CUBLAS_STATUS_SUCCESS) return;
  const char* name = blas.cublasGetStatusName(s);
  throw ClabError(name, "rank " + std::to_string(rank) + ": " + call + " failed: " + name);
}

}  // namespace

GpuGemm::GpuGemm(const gpu::CudaRuntime& rt, DeviceMemory& memory, gpu::cudaStream_t stream, int rank)
    : rt_(rt), memory_(memory), stream_(stream), rank_(rank) {
  std::string why;
  blas_ = gpu::load_cublas(&why);
  if (!blas_) throw ClabError(ErrCode::SystemError, "gemm on the nccl backend needs cuBLAS: " + why);
  blas_check(*blas_, blas_->cublasCreate_v2(&handle_), "cublasCreate", rank_);
  blas_check(*blas_, blas_->cublasSetStream_v2(handle_, stream_), "cublasSetStream", rank_);
}

void GpuGemm::warm(const gpu::CudaRuntime& rt, int device, int rank, const std::vector<Shape>& shapes) {
  std::string why;
  const gpu::CublasLibrary* blas = gpu::load_cublas(&why);
  if (!blas) throw ClabError(ErrCode::SystemError, "gemm on the nccl backend needs cuBLAS: " + why);
  cuda_check(rt, rt.cudaSetDevice(device), "cudaSetDevice", rank);
  gpu::cublasHandle_t handle = nullptr;
  blas_check(*blas, blas->cublasCreate_v2(&handle), "cublasCreate", rank);
  gpu::cudaStream_t stream = nullptr;
  std::vector<void*> scratch;
  const auto release = [&] {
    if (stream) rt.cudaStreamSynchronize(stream);
    for (void* p : scratch) rt.cudaFree(p);
    if (stream) rt.cudaStreamDestroy(stream);
    blas->cublasDestroy_v2(handle);
  };
  try {
    if (!shapes.empty()) {
      cuda_check(rt, rt.cudaStreamCreateWithFlags(&stream, gpu::kCudaStreamNonBlocking), "cudaStreamCreateWithFlags", rank);
      blas_check(*blas, blas->cublasSetStream_v2(handle, stream), "cublasSetStream", rank);
    }
    for (const Shape& s : shapes) {
      const uint64_t e = dtype_size(s.dtype);
      void* p[3] = {nullptr, nullptr, nullptr};
      const uint64_t bytes[3] = {s.m * s.k * e, s.k * s.n * e, s.m * s.n * e};
      bool held = true;
      for (int i = 0; i < 3 && held; i++) held = rt.cudaMalloc(&p[i], bytes[i]) == gpu::cudaSuccess;
      for (void* q : p)
        if (q) scratch.push_back(q);
      if (!held) {
        rt.cudaGetLastError();  // out of memory: the step will say so itself
        continue;
      }
      multiply(*blas, handle, s.dtype, s.m, s.n, s.k, p[0], p[1], p[2], rank);
    }
  } catch (...) {
    release();
    throw;
  }
  release();
}

GpuGemm::~GpuGemm() {
  if (handle_) blas_->cublasDestroy_v2(handle_);
}

void GpuGemm::prepare(Dtype dtype, uint64_t m, uint64_t n, uint64_t k) {
  if (c_.get() && dtype == dtype_ && m == m_ && n == n_ && k == k_) return;
  // Only the operands' distinct rows cross from the host; the GPU repeats them (A's rows every 7,
  // B's every 5, repeat_gemm_rows). Making and copying whole 64 MiB operands took ~150 ms per
  // stream on one H100.
  std::vector<uint8_t> ha, hb;
  fill_gemm_operand_heads(dtype, m, n, k, ha, hb);
  const uint64_t e = dtype_size(dtype);
  a_ = memory_.acquire(m * k * e, "gemm operand A");
  b_ = memory_.acquire(k * n * e, "gemm operand B");
  c_ = memory_.acquire(m * n * e, "gemm result C");
  repeat_rows(a_.get(), ha, kGemmRowsA, m, k * e, "gemm A");
  repeat_rows(b_.get(), hb, kGemmRowsB, k, n * e, "gemm B");
  cuda_check(rt_, rt_.cudaStreamSynchronize(stream_), "cudaStreamSynchronize (gemm operands)", rank_);
  dtype_ = dtype;
  m_ = m;
  n_ = n;
  k_ = k;
}

void GpuGemm::repeat_rows(uint8_t* dst, const std::vector<uint8_t>& head, uint64_t period, uint64_t rows, uint64_t row_bytes,
                          const char* what) {
  const std::string copy_in = std::string("cudaMemcpyAsync (") + what + " rows)";
  cuda_check(rt_, rt_.cudaMemcpyAsync(dst, head.data(), head.size(), gpu::cudaMemcpyHostToDevice, stream_), copy_in.c_str(), rank_);
  const std::string copy_on = std::string("cudaMemcpyAsync (") + what + " repeated)";
  repeat_gemm_rows(period, rows, [&](uint64_t at, uint64_t n) {
    cuda_check(rt_, rt_.cudaMemcpyAsync(dst + at * row_bytes, dst, n * row_bytes, gpu::cudaMemcpyDeviceToDevice, stream_), copy_on.c_str(),
               rank_);
  });
}

void GpuGemm::target_sms(int sm_count) {
  if (sm_count == sm_count_) return;
  blas_check(*blas_, blas_->cublasSetSmCountTarget(handle_, sm_count), "cublasSetSmCountTarget", rank_);
  sm_count_ = sm_count;
}

void GpuGemm::issue() { multiply(*blas_, handle_, dtype_, m_, n_, k_, a_.get(), b_.get(), c_.get(), rank_); }

void GpuGemm::multiply(const gpu::CublasLibrary& blas, gpu::cublasHandle_t handle, Dtype dtype, uint64_t m64, uint64_t n64, uint64_t k64,
                       const void* a, const void* b, void* c, int rank) {
  // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: B and A swap places, leading dimensions n, k, n.
  const int m = static_cast<int>(m64), n = static_cast<int>(n64), k = static_cast<int>(k64);
  const gpu::cudaDataType t = cuda_type(dtype);
  const bool f64 = dtype == Dtype::Float64;
  const float one_f = 1.f, zero_f = 0.f;
  const double one_d = 1.0, zero_d = 0.0;
  const void* alpha = f64 ? static_cast<const void*>(&one_d) : &one_f;
  const void* beta = f64 ? static_cast<const void*>(&zero_d) : &zero_f;
  blas_check(blas,
             blas.cublasGemmEx(handle, gpu::CUBLAS_OP_N, gpu::CUBLAS_OP_N, n, m, k, alpha, b, t, n, a, t, k, beta, c, t, n,
                               f64 ? gpu::CUBLAS_COMPUTE_64F : gpu::CUBLAS_COMPUTE_32F, gpu::CUBLAS_GEMM_DEFAULT),
             "cublasGemmEx", rank);
}

}  // namespace clab
