// A step's tag on its NCCL calls: NCCL 2.31's per-collective configuration (ncclCollConfig_t, the
// nccl*Config entry points) carries a userProfilerTag that NCCL hands to its profiler with the call's
// events (profiler v7's userTag), so that the plug-in's records name the step that made the call.
// Header-only: the test-only module (binding/test_hooks.cc), which links nothing of nccl/, plays the
// choice of entry point against a library of fakes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/op.h"
#include "gpu/gpu_loader.h"

namespace clab {

/** NCCL keeps the tags whose most significant bit is set for itself: the lab's have it clear. */
constexpr uint64_t kNcclReservedTags = uint64_t{1} << 63;

/** A config that changes nothing of the call but carries `tag` (the values of NCCL's initializer). */
inline gpu::ncclCollConfig_t coll_config(uint64_t tag) {
  gpu::ncclCollConfig_t c{};
  c.size = sizeof(gpu::ncclCollConfig_t);
  c.magic = gpu::kNcclApiMagic;
  c.version = gpu::kNcclCollConfigVersion;
  c.ext = nullptr;
  c.minCTAs = c.maxCTAs = c.nvlsCTAs = c.cgaClusterSize = gpu::kNcclConfigUndefInt;
  c.algSelection = nullptr;
  c.forceAlgSelection = 1;
  c.CTAPolicy = gpu::kNcclConfigUndefInt;
  c.userProfilerTag = tag;
  return c;
}

/** One collective's arguments as NCCL takes them (buffers already standing in for those it ignores). */
struct NcclCall {
  OpKind kind;
  const void* send;
  void* recv;
  size_t count;
  gpu::ncclDataType_t type;
  gpu::ncclRedOp_t redop;
  int root;
  gpu::ncclComm_t comm;
  gpu::cudaStream_t stream;
};

/**
 * Makes `call` through its nccl*Config entry point with `config`: returns the entry point's name and
 * its result in *result; nullptr, having called nothing, where the op has none (send, recv, barrier,
 * group, gemm) or the loaded NCCL lacks it (before 2.31). The caller then makes the plain call.
 */
inline const char* call_with_config(const gpu::NcclLibrary& n, const NcclCall& c, const gpu::ncclCollConfig_t& config,
                                    gpu::ncclResult_t* result) {
  switch (c.kind) {
    case OpKind::AllReduce:
      if (!n.ncclAllReduceConfig) return nullptr;
      *result = n.ncclAllReduceConfig(c.send, c.recv, c.count, c.type, c.redop, c.comm, c.stream, &config);
      return "ncclAllReduceConfig";
    case OpKind::Broadcast:
      if (!n.ncclBroadcastConfig) return nullptr;
      *result = n.ncclBroadcastConfig(c.send, c.recv, c.count, c.type, c.root, c.comm, c.stream, &config);
      return "ncclBroadcastConfig";
    case OpKind::Reduce:
      if (!n.ncclReduceConfig) return nullptr;
      *result = n.ncclReduceConfig(c.send, c.recv, c.count, c.type, c.redop, c.root, c.comm, c.stream, &config);
      return "ncclReduceConfig";
    case OpKind::AllGather:
      if (!n.ncclAllGatherConfig) return nullptr;
      *result = n.ncclAllGatherConfig(c.send, c.recv, c.count, c.type, c.comm, c.stream, &config);
      return "ncclAllGatherConfig";
    case OpKind::ReduceScatter:
      if (!n.ncclReduceScatterConfig) return nullptr;
      *result = n.ncclReduceScatterConfig(c.send, c.recv, c.count, c.type, c.redop, c.comm, c.stream, &config);
      return "ncclReduceScatterConfig";
    case OpKind::AllToAll:
      if (!n.ncclAlltoAllConfig) return nullptr;
      *result = n.ncclAlltoAllConfig(c.send, c.recv, c.count, c.type, c.comm, c.stream, &config);
      return "ncclAlltoAllConfig";
    case OpKind::Gather:
      if (!n.ncclGatherConfig) return nullptr;
      *result = n.ncclGatherConfig(c.send, c.recv, c.count, c.type, c.root, c.comm, c.stream, &config);
      return "ncclGatherConfig";
    case OpKind::Scatter:
      if (!n.ncclScatterConfig) return nullptr;
      *result = n.ncclScatterConfig(c.send, c.recv, c.count, c.type, c.root, c.comm, c.stream, &config);
      return "ncclScatterConfig";
    case OpKind::Send:
    case OpKind::Recv:
    case OpKind::Barrier:
    case OpKind::Group:
    case OpKind::Gemm: return nullptr;
  }
  return nullptr;
}

}  // namespace clab
