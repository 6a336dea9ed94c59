// Our declarations of NCCL's tuner plug-in interface (`ncclTunerPlugin_v5`, NCCL 2.28; v4 before),
// limited to what a tuner that only reads needs. NCCL hands getCollInfo its cost table: the time it
// predicts (µs) for each algorithm × protocol, -1 where one is ruled out, as a contiguous
// [numAlgo][numProto] array of floats passed as float**.
#pragma once

#include <cstddef>
#include <cstdint>

#include "profiler/nccl_profiler_abi.h"

namespace clab::nccl_tuner {

using Result = nccl_profiler::Result;
using Logger = nccl_profiler::Logger;

struct NvlDomainInfo;   // v5's, never read
struct TunerConstants;  // v5's, left as NCCL set them

struct TableV5 {
  const char* name;
  Result (*init)(void** context, uint64_t comm_id, size_t n_ranks, size_t n_nodes, Logger log, NvlDomainInfo* nvl,
                 TunerConstants* constants);
  Result (*get_coll_info)(void* context, int coll_type, size_t n_bytes, int num_pipe_ops, float** cost_table, int num_algo, int num_proto,
                          int reg_buff, int* n_channels);
  Result (*finalize)(void* context);
};

struct TableV4 {
  const char* name;
  Result (*init)(size_t n_ranks, size_t n_nodes, Logger log, void** context);
  Result (*get_coll_info)(void* context, int coll_type, size_t n_bytes, int num_pipe_ops, float** cost_table, int num_algo, int num_proto,
                          int reg_buff, int* n_channels);
  Result (*finalize)(void* context);
};

}  // namespace clab::nccl_tuner
