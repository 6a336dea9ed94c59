// Turns CUDA, NCCL and cuBLAS return codes into ClabErrors whose code is the library's own name
// (cudaErrorIllegalAddress, NCCL_ERROR_REMOTE_ERROR, CUBLAS_STATUS_NOT_SUPPORTED) and whose
// message names the rank, the call and the library's explanation. No Node-API here.
#pragma once

#include <string>

#include "gpu/gpu_loader.h"

namespace clab {

/** NCCL_ERROR_INTERNAL_ERROR etc. (the names torch and NCCL's docs use). */
const char* nccl_result_name(gpu::ncclResult_t r);

[[noreturn]] void throw_cuda(const gpu::CudaRuntime& rt, gpu::cudaError_t e, const std::string& call, int rank);

/**
 * "rank 1: ncclAllReduce failed: NCCL_ERROR_SYSTEM_ERROR (unhandled system error …); NCCL's last
 * warning: …" with Error.code the result's name. The last warning is ncclGetLastError's text, where
 * the loaded NCCL has it (2.13 and later); `comm` may be null (before the communicator exists).
 */
[[noreturn]] void throw_nccl(const gpu::NcclLibrary& nccl, gpu::ncclResult_t r, const std::string& call, int rank, gpu::ncclComm_t comm);

inline void cuda_check(const gpu::CudaRuntime& rt, gpu::cudaError_t e, const char* call, int rank) {
  if (e != gpu::cudaSuccess) throw_cuda(rt, e, call, rank);
}

inline void nccl_check(const gpu::NcclLibrary& nccl, gpu::ncclResult_t r, const char* call, int rank, gpu::ncclComm_t comm) {
  if (r != gpu::ncclSuccess && r != gpu::ncclInProgress) throw_nccl(nccl, r, call, rank, comm);
}

}  // namespace clab
