#include "gpu/topology.h"

#include <algorithm>

#include "gpu/gpu_loader.h"

namespace clab {

namespace {

using namespace gpu;

const char* pcie_word(nvmlGpuTopologyLevel_t level) {
  switch (level) {
    case NVML_TOPOLOGY_INTERNAL: return "board";
    case NVML_TOPOLOGY_SINGLE: return "PIX";
    case NVML_TOPOLOGY_MULTIPLE: return "PXB";
    case NVML_TOPOLOGY_HOSTBRIDGE: return "PHB";
    case NVML_TOPOLOGY_NODE: return "NODE";
    case NVML_TOPOLOGY_SYSTEM: return "SYS";
  }
  return "";
}

// One direction of one NVLink, GB/s, by NVML's nvmlNvlinkVersion_t: 1.0 → 20; 2.0, 2.2, 3.0, 3.1,
// 4.0 → 25; 5.0 → 50. Some drivers report 5.0 for Hopper's links, which run at 4.0's rate.
double nvlink_gbps_per_link(unsigned version, int compute_capability) {
  if (version == 0) return 0;
  if (version == 1) return 20;
  if (version <= 6 || compute_capability / 10 == 9) return 25;
  return 50;
}

bool same_pci(const nvmlPciInfo_t& x, const nvmlPciInfo_t& y) { return x.domain == y.domain && x.bus == y.bus && x.device == y.device; }

struct NvmlSide {
  nvmlDevice_t device = nullptr;
  nvmlPciInfo_t pci{};
  std::vector<nvmlPciInfo_t> gpu_peers;  // remote end of each active link to a GPU
  int switch_links = 0;
};

void read_versions(Topology& t, const CudaRuntime* rt, const NvmlLibrary* nvml, bool detailed) {
  if (nvml) {
    char v[kNvmlVersionBytes] = {0};
    if (nvml->nvmlSystemGetDriverVersion(v, sizeof v) == NVML_SUCCESS) t.versions.emplace_back("nvidiaDriver", v);
  }
  std::string why;
  if (rt) {
    int v = 0;
    if (rt->cudaDriverGetVersion(&v) == cudaSuccess && v > 0) t.versions.emplace_back("cudaDriver", cuda_version_text(v));
    if (rt->cudaRuntimeGetVersion(&v) == cudaSuccess) t.versions.emplace_back("cudaRuntime", cuda_version_text(v));
  }
  if (const NcclLibrary* nccl = load_nccl(&why)) {
    int v = 0;
    if (nccl->ncclGetVersion(&v) == ncclSuccess) t.versions.emplace_back("nccl", nccl_version_text(v));
    t.versions.emplace_back("ncclLibrary", nccl->library);
  } else {
    t.problems.push_back(why);
  }
  if (!detailed) return;
  why.clear();
  if (const CublasLibrary* blas = load_cublas(&why)) {
    int major = 0, minor = 0, patch = 0;
    blas->cublasGetProperty(MAJOR_VERSION, &major);
    blas->cublasGetProperty(MINOR_VERSION, &minor);
    blas->cublasGetProperty(PATCH_LEVEL, &patch);
    t.versions.emplace_back("cublas", std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch));
  } else if (!why.empty()) {
    t.problems.push_back(why);
  }
}

}  // namespace

Topology read_topology(bool detailed) {
  Topology t;
  std::string why;
  const CudaRuntime* rt = load_cudart(&why);
  if (!rt) t.problems.push_back(why);
  why.clear();
  const NvmlLibrary* nvml = load_nvml(&why);
  if (!nvml) t.problems.push_back(why);
  read_versions(t, rt, nvml, detailed);
  if (!rt) return t;

  int count = 0;
  const cudaError_t e = rt->cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    t.problems.push_back("cudaGetDeviceCount failed: " + cuda_error_text(*rt, e));
    return t;
  }
  std::vector<NvmlSide> sides(count);
  for (int i = 0; i < count; i++) {
    GpuInfo g;
    g.index = i;
    char bus[32] = {0};
    if (rt->cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess) g.bus_id = bus;
    g.compute_capability = compute_capability(*rt, i);
    NvmlSide& side = sides[i];
    if (nvml && !g.bus_id.empty() && nvml->nvmlDeviceGetHandleByPciBusId_v2(g.bus_id.c_str(), &side.device) == NVML_SUCCESS) {
      char name[kNvmlNameBytes] = {0};
      if (nvml->nvmlDeviceGetName(side.device, name, sizeof name) == NVML_SUCCESS) g.name = name;
      nvmlMemory_t mem{};
      if (nvml->nvmlDeviceGetMemoryInfo(side.device, &mem) == NVML_SUCCESS) g.memory_bytes = mem.total;
      nvml->nvmlDeviceGetPciInfo_v3(side.device, &side.pci);
      unsigned gen = 0, width = 0;
      if (nvml->nvmlDeviceGetMaxPcieLinkGeneration(side.device, &gen) == NVML_SUCCESS) g.pcie_gen = static_cast<int>(gen);
      if (nvml->nvmlDeviceGetMaxPcieLinkWidth(side.device, &width) == NVML_SUCCESS) g.pcie_width = static_cast<int>(width);
      for (unsigned link = 0; link < kNvmlNvlinkMaxLinks; link++) {
        nvmlEnableState_t state = NVML_FEATURE_DISABLED;
        if (nvml->nvmlDeviceGetNvLinkState(side.device, link, &state) != NVML_SUCCESS || state != NVML_FEATURE_ENABLED) continue;
        nvmlIntNvLinkDeviceType_t type = NVML_NVLINK_DEVICE_TYPE_GPU;
        nvml->nvmlDeviceGetNvLinkRemoteDeviceType(side.device, link, &type);
        nvmlPciInfo_t remote{};
        if (g.nvlink_version == 0) {
          unsigned version = 0;
          if (nvml->nvmlDeviceGetNvLinkVersion(side.device, link, &version) == NVML_SUCCESS) {
            g.nvlink_version = static_cast<int>(version);
            g.nvlink_gbps = nvlink_gbps_per_link(version, g.compute_capability);
          }
        }
        if (type == NVML_NVLINK_DEVICE_TYPE_SWITCH) side.switch_links++;
        else if (nvml->nvmlDeviceGetNvLinkRemotePciInfo_v2(side.device, link, &remote) == NVML_SUCCESS)
          side.gpu_peers.push_back(remote);
      }
    }
    t.gpus.push_back(g);
  }
  for (int a = 0; a < count; a++) {
    for (int b = a + 1; b < count; b++) {
      GpuLink l;
      l.a = a;
      l.b = b;
      const NvmlSide &x = sides[a], &y = sides[b];
      for (const nvmlPciInfo_t& p : x.gpu_peers) l.nvlinks += same_pci(p, y.pci) ? 1 : 0;
      if (l.nvlinks > 0) l.via = "direct";
      else if (x.switch_links > 0 && y.switch_links > 0) {
        l.nvlinks = std::min(x.switch_links, y.switch_links);
        l.via = "NVSwitch";
      }
      if (l.nvlinks > 0 && t.gpus[a].nvlink_gbps > 0 && t.gpus[b].nvlink_gbps > 0)
        l.peak_gbps = l.nvlinks * std::min(t.gpus[a].nvlink_gbps, t.gpus[b].nvlink_gbps);
      nvmlGpuTopologyLevel_t level;
      if (nvml && x.device && y.device && nvml->nvmlDeviceGetTopologyCommonAncestor(x.device, y.device, &level) == NVML_SUCCESS)
        l.pcie = pcie_word(level);
      if (detailed) {
        rt->cudaDeviceGetP2PAttribute(&l.p2p_access, cudaDevP2PAttrAccessSupported, a, b);
        rt->cudaDeviceGetP2PAttribute(&l.p2p_rank, cudaDevP2PAttrPerformanceRank, a, b);
        rt->cudaDeviceGetP2PAttribute(&l.p2p_atomics, cudaDevP2PAttrNativeAtomicSupported, a, b);
      }
      t.links.push_back(l);
    }
  }
  return t;
}

}  // namespace clab
