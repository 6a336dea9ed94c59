#include "gpu/gpu_errors.h"

#include <cctype>

#include "common/errors.h"

namespace clab {

const char* nccl_result_name(gpu::ncclResult_t r) {
  switch (r) {
    case gpu::ncclSuccess: return "NCCL_SUCCESS";
    case gpu::ncclUnhandledCudaError: return "NCCL_ERROR_UNHANDLED_CUDA_ERROR";
    case gpu::ncclSystemError: return "NCCL_ERROR_SYSTEM_ERROR";
    case gpu::ncclInternalError: return "NCCL_ERROR_INTERNAL_ERROR";
    case gpu::ncclInvalidArgument: return "NCCL_ERROR_INVALID_ARGUMENT";
    case gpu::ncclInvalidUsage: return "NCCL_ERROR_INVALID_USAGE";
    case gpu::ncclRemoteError: return "NCCL_ERROR_REMOTE_ERROR";
    case gpu::ncclInProgress: return "NCCL_IN_PROGRESS";
  }
  return "NCCL_ERROR_UNKNOWN";
}

void throw_cuda(const gpu::CudaRuntime& rt, gpu::cudaError_t e, const std::string& call, int rank) {
  throw ClabError(rt.cudaGetErrorName(e), "rank " + std::to_string(rank) + ": " + call + " failed: " + gpu::cuda_error_text(rt, e));
}

void throw_nccl(const gpu::NcclLibrary& nccl, gpu::ncclResult_t r, const std::string& call, int rank, gpu::ncclComm_t comm) {
  std::string message =
      "rank " + std::to_string(rank) + ": " + call + " failed: " + nccl_result_name(r) + " (" + nccl.ncclGetErrorString(r) + ")";
  // NCCL's own words for what went wrong: the text of its last WARN (NCCL 2.13 and later).
  const char* text = nccl.ncclGetLastError ? nccl.ncclGetLastError(comm) : nullptr;
  std::string last = text ? text : "";
  while (!last.empty() && std::isspace(static_cast<unsigned char>(last.back()))) last.pop_back();
  if (!last.empty()) message += "; NCCL's last warning: " + last;
  throw ClabError(nccl_result_name(r), message);
}

}  // namespace clab
