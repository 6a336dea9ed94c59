#include "backends.h"

#include "gpu_loader.h"

namespace clab {

BackendStatus cpu_backend_status() { return {true, ""}; }

BackendStatus nccl_backend_status() {
  std::string why;
  const gpu::CudaRuntime* rt = gpu::load_cudart(&why);
  if (!rt) return {false, why};
  if (!gpu::load_nccl(&why)) return {false, why};
  int count = 0;
  const gpu::cudaError_t e = rt->cudaGetDeviceCount(&count);
  if (e != gpu::cudaSuccess) return {false, "no usable GPU: cudaGetDeviceCount failed: " + gpu::cuda_error_text(*rt, e)};
  if (count == 0) return {false, "no GPU is visible to CUDA"};
  return {true, "", count};
}

}  // namespace clab
