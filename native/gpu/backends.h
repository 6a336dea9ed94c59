// Which backends this addon can run here. The cpu backend is always built in; the nccl backend
// needs the CUDA runtime and NCCL (loaded with dlopen, gpu_loader.h) and at least one visible GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clab {

struct BackendStatus {
  bool available;
  std::string reason;  // why not, when !available ("libnccl.so.2: cannot open shared object file: ...")
  int devices = 0;     // GPUs visible to CUDA (nccl)
};

BackendStatus cpu_backend_status();
/** `nccl_library` (a path): judged by that NCCL, loaded apart (gpu_loader.h probe_nccl), not the process's own. */
BackendStatus nccl_backend_status(const std::string& nccl_library = {});

/**
 * Each GPU visible to CUDA's total memory, by CUDA index, read from NVML alone (no cuInit, which
 * takes ~0.2 s): what the core checks a plan against before it forks the ranks. Empty when NVML
 * cannot say it for certain: MIG, GPUs of different sizes (which CUDA index is which then depends
 * on CUDA's device order), a UUID in CUDA_VISIBLE_DEVICES; the caller then asks CUDA (topology.h).
 */
std::vector<uint64_t> gpu_memory_totals_from_nvml();

}  // namespace clab
