// Our declarations of NCCL's tuner plug-in interface (`ncclTunerPlugin_v6`, NCCL 2.30; v5 from 2.28,
// v4 from 2.24), limited to what a tuner that only reads needs. NCCL hands getCollInfo its cost table: the time it
// predicts (µs) for each algorithm × protocol, -1 where one is ruled out, as a contiguous
// [numAlgo][numProto] array of floats passed as float**.
#pragma once

#include <cstddef>
#include <cstdint>

#include "profiler/nccl_profiler_abi.h"

namespace clab::nccl_tuner {

using Result = nccl_profiler::Result;
using Logger = nccl_profiler::Logger;

struct NvlDomainInfo;   // v5's and v6's, never read
struct TunerConstants;  // v5's and v6's, left as NCCL set them

// The entry points' types. Every version's getCollInfo and finalize are v4's; init changed in v5.
using InitV4 = Result (*)(size_t n_ranks, size_t n_nodes, Logger log, void** context);
using InitV5 = Result (*)(void** context, uint64_t comm_id, size_t n_ranks, size_t n_nodes, Logger log, NvlDomainInfo* nvl,
                          TunerConstants* constants);
using GetCollInfo = Result (*)(void* context, int coll_type, size_t n_bytes, int num_pipe_ops, float** cost_table, int num_algo,
                               int num_proto, int reg_buff, int* n_channels);
using Finalize = Result (*)(void* context);
using GetChunkSize = Result (*)(void* context, int coll_type, size_t n_bytes, int algo, int proto, int n_channels, size_t* chunk_size);

struct TableV4 {
  const char* name;
  InitV4 init;
  GetCollInfo get_coll_info;
  Finalize finalize;
};

struct TableV5 {
  const char* name;
  InitV5 init;
  GetCollInfo get_coll_info;
  Finalize finalize;
};

// v6: v5's init and getCollInfo, and getChunkSize, which NCCL calls (where it is not null) with the
// chunk size it computed for a call, to be changed in place. Null leaves NCCL's size as it is.
struct TableV6 {
  const char* name;
  InitV5 init;
  GetCollInfo get_coll_info;
  Finalize finalize;
  GetChunkSize get_chunk_size;
};

}  // namespace clab::nccl_tuner
