// What `clab doctor` and the run record say about the machine: the GPUs (CUDA's numbering, with
// NVML's name and memory), the link between every pair (NVLinks from NVML, PCIe distance, CUDA's
// peer attributes) and the driver, CUDA, NCCL and cuBLAS versions. Creates no CUDA context.
// Whatever cannot be read is left out and said in `problems`. No Node-API here.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace clab {

struct GpuInfo {
  int index = 0;     // CUDA device index (CUDA_VISIBLE_DEVICES applies)
  std::string name;  // "NVIDIA H200" ("" when NVML is missing)
  uint64_t memory_bytes = 0;
  std::string bus_id;                // "0000:18:00.0"
  int compute_capability = -1;       // major × 10 + minor (9.0 → 90), -1 unknown
  int pcie_gen = 0, pcie_width = 0;  // the PCIe link's most (NVML's max generation and width; 0 unknown)
  int nvlink_version = 0;            // NVML's nvmlNvlinkVersion_t of the first active link (0 none)
  double nvlink_gbps = 0;            // one direction of one NVLink, GB/s (0 none or unknown)
};

struct GpuLink {
  int a = 0, b = 0;
  int nvlinks = 0;       // active NVLinks between the two (through a switch: the fewer of the two sides)
  std::string via;       // "direct", "NVSwitch" or "" (no NVLink)
  std::string pcie;      // nvidia-smi's words: "board", "PIX", "PXB", "PHB", "NODE", "SYS" ("" unknown)
  double peak_gbps = 0;  // one direction's NVLink peak: nvlinks × the slower side's per-link rate (0 unknown)
  int p2p_access = -1;   // CUDA peer attributes (detailed only; -1 unknown)
  int p2p_rank = -1;
  int p2p_atomics = -1;
};

struct Topology {
  std::vector<GpuInfo> gpus;
  std::vector<GpuLink> links;                                 // every pair a < b
  std::vector<std::pair<std::string, std::string>> versions;  // nvidiaDriver, cudaDriver, cudaRuntime, nccl, cublas
  std::vector<std::string> problems;
};

/** `detailed` adds CUDA's peer attributes and loads cuBLAS for its version (slower; for doctor). */
Topology read_topology(bool detailed);

}  // namespace clab
