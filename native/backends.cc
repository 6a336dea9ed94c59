#include "backends.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "gpu_loader.h"

namespace clab {

BackendStatus cpu_backend_status() { return {true, ""}; }

namespace {

/**
 * GPUs visible to CUDA, counted without initialising CUDA (cuInit takes a good part of a second,
 * which a run pays again in every rank): NVML's count, no more than CUDA_VISIBLE_DEVICES lists.
 * -1 when NVML cannot say.
 */
int visible_gpus_from_nvml() {
  std::string why;
  const gpu::NvmlLibrary* nvml = gpu::load_nvml(&why);
  unsigned n = 0;
  if (!nvml || nvml->nvmlDeviceGetCount_v2(&n) != gpu::NVML_SUCCESS) return -1;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!visible) return static_cast<int>(n);
  // CUDA stops at the first entry it cannot use; a list of n_listed entries shows at most that many.
  int listed = 0;
  std::string list(visible);
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t comma = std::min(list.find(',', pos), list.size());
    const std::string entry = list.substr(pos, comma - pos);
    if (entry.empty() || entry == "-1") break;
    listed++;
    pos = comma + 1;
  }
  return std::min(listed, static_cast<int>(n));
}

}  // namespace

BackendStatus nccl_backend_status() {
  std::string why;
  const gpu::CudaRuntime* rt = gpu::load_cudart(&why);
  if (!rt) return {false, why};
  if (!gpu::load_nccl(&why)) return {false, why};
  const int nvml_count = visible_gpus_from_nvml();
  if (nvml_count == 0) return {false, "no GPU is visible to CUDA (NVML counts none, or CUDA_VISIBLE_DEVICES hides them)"};
  if (nvml_count > 0) return {true, "", nvml_count};
  int count = 0;
  const gpu::cudaError_t e = rt->cudaGetDeviceCount(&count);
  if (e != gpu::cudaSuccess) return {false, "no usable GPU: cudaGetDeviceCount failed: " + gpu::cuda_error_text(*rt, e)};
  if (count == 0) return {false, "no GPU is visible to CUDA"};
  return {true, "", count};
}

}  // namespace clab
