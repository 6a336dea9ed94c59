#include "gpu_gemm.h"

#include <vector>

#include "errors.h"
#include "gemm.h"
#include "gpu_errors.h"

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

GpuGemm::~GpuGemm() {
  if (handle_) blas_->cublasDestroy_v2(handle_);
}

void GpuGemm::prepare(Dtype dtype, uint64_t m, uint64_t n, uint64_t k) {
  if (c_.get() && dtype == dtype_ && m == m_ && n == n_ && k == k_) return;
  std::vector<uint8_t> a, b;
  fill_gemm_operands(dtype, m, n, k, a, b);
  const uint64_t e = dtype_size(dtype);
  a_ = memory_.acquire(a.size(), "gemm operand A");
  b_ = memory_.acquire(b.size(), "gemm operand B");
  c_ = memory_.acquire(m * n * e, "gemm result C");
  cuda_check(rt_, rt_.cudaMemcpyAsync(a_.get(), a.data(), a.size(), gpu::cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync (gemm A)", rank_);
  cuda_check(rt_, rt_.cudaMemcpyAsync(b_.get(), b.data(), b.size(), gpu::cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync (gemm B)", rank_);
  cuda_check(rt_, rt_.cudaStreamSynchronize(stream_), "cudaStreamSynchronize (gemm operands)", rank_);
  dtype_ = dtype;
  m_ = m;
  n_ = n;
  k_ = k;
}

void GpuGemm::issue() {
  // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: B and A swap places, leading dimensions n, k, n.
  const int m = static_cast<int>(m_), n = static_cast<int>(n_), k = static_cast<int>(k_);
  const gpu::cudaDataType t = cuda_type(dtype_);
  const bool f64 = dtype_ == Dtype::Float64;
  const float one_f = 1.f, zero_f = 0.f;
  const double one_d = 1.0, zero_d = 0.0;
  const void* alpha = f64 ? static_cast<const void*>(&one_d) : &one_f;
  const void* beta = f64 ? static_cast<const void*>(&zero_d) : &zero_f;
  blas_check(*blas_,
             blas_->cublasGemmEx(handle_, gpu::CUBLAS_OP_N, gpu::CUBLAS_OP_N, n, m, k, alpha, b_.get(), t, n, a_.get(), t, k,
                                 beta, c_.get(), t, n, f64 ? gpu::CUBLAS_COMPUTE_64F : gpu::CUBLAS_COMPUTE_32F,
                                 gpu::CUBLAS_GEMM_DEFAULT),
             "cublasGemmEx", rank_);
}

}  // namespace clab
