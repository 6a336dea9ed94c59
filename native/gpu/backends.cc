#include "gpu/backends.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpu/gpu_loader.h"

namespace clab {

BackendStatus cpu_backend_status() { return {true, ""}; }

namespace {

/**
 * CUDA_VISIBLE_DEVICES's entries as CUDA reads them: up to the first empty one or "-1". `set` false
 * when the variable is absent (every GPU is visible).
 */
struct VisibleList {
  bool set = false;
  std::vector<std::string> entries;
};

VisibleList visible_list() {
  VisibleList v;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!visible) return v;
  v.set = true;
  const std::string list(visible);
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t comma = std::min(list.find(',', pos), list.size());
    std::string entry = list.substr(pos, comma - pos);
    if (entry.empty() || entry == "-1") break;
    v.entries.push_back(std::move(entry));
    pos = comma + 1;
  }
  return v;
}

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
  const VisibleList visible = visible_list();
  // CUDA stops at the first entry it cannot use; a list of n_listed entries shows at most that many.
  if (!visible.set) return static_cast<int>(n);
  return std::min(static_cast<int>(visible.entries.size()), static_cast<int>(n));
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::vector<uint64_t> gpu_memory_totals_from_nvml() {
  std::string why;
  const gpu::NvmlLibrary* nvml = gpu::load_nvml(&why);
  unsigned n = 0;
  if (!nvml || nvml->nvmlDeviceGetCount_v2(&n) != gpu::NVML_SUCCESS || n == 0) return {};
  uint64_t total = 0;
  for (unsigned i = 0; i < n; i++) {
    gpu::nvmlDevice_t device = nullptr;
    gpu::nvmlMemory_t memory{};
    unsigned mig_current = 0, mig_pending = 0;
    if (nvml->nvmlDeviceGetHandleByIndex_v2(i, &device) != gpu::NVML_SUCCESS) return {};
    // A MIG instance is a CUDA device with a part of its GPU's memory: CUDA has to say.
    if (nvml->nvmlDeviceGetMigMode(device, &mig_current, &mig_pending) == gpu::NVML_SUCCESS && mig_current != 0) return {};
    if (nvml->nvmlDeviceGetMemoryInfo(device, &memory) != gpu::NVML_SUCCESS || memory.total == 0) return {};
    // Which CUDA index is which GPU (CUDA_DEVICE_ORDER) only stops mattering when they all hold the same.
    if (i > 0 && memory.total != total) return {};
    total = memory.total;
  }
  const VisibleList visible = visible_list();
  size_t count = n;
  if (visible.set) {
    // Indices only: a UUID or MIG entry names a device this count cannot place.
    count = 0;
    for (const std::string& e : visible.entries) {
      if (!all_digits(e)) return {};
      if (std::stoul(e) >= n) break;  // CUDA ignores the list from an index it has not got
      count++;
    }
  }
  return std::vector<uint64_t>(count, total);
}

BackendStatus nccl_backend_status(const std::string& nccl_library) {
  std::string why;
  const gpu::CudaRuntime* rt = gpu::load_cudart(&why);
  if (!rt) return {false, why};
  gpu::NcclProbe probe;
  if (nccl_library.empty() ? !gpu::load_nccl(&why) : !gpu::probe_nccl(nccl_library, &probe, &why)) return {false, why};
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
