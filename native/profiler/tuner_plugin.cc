// The lab's NCCL tuner plug-in, in the same library as the profiler (the rank names it in
// NCCL_TUNER_PLUGIN too). It changes nothing: getCollInfo records NCCL's cost table (its predicted
// time per algorithm × protocol for the call) and leaves the choice to NCCL. A call that hands over
// the same function, size, pipelined ops and table as the communicator's call before it is not
// recorded again: the record before it already says what NCCL predicted (the lab reads, for each
// call, the last record at or before it). A timed step of 200 iterations so leaves one record, not
// 200, to be read and joined between steps.
#include "profiler/tuner_plugin.h"

#include <time.h>

#include <atomic>
#include <cstring>

#include "profiler/nccl_tuner_abi.h"

namespace clab {
namespace {

namespace nt = nccl_tuner;

struct TunerContext {
  uint64_t comm;
  // The last call recorded on this communicator (NCCL calls getCollInfo from the thread that issues
  // on it, one call at a time).
  bool recorded = false;
  int coll_type = 0;
  size_t n_bytes = 0;
  int pipe_ops = 0;
  int n_algo = 0;
  int n_proto = 0;
  float cost_us[kTunerAlgorithms][kTunerProtocols] = {};
};

std::atomic<uint64_t> g_calls{0};
std::atomic<int> g_interface{0};
std::atomic<bool> g_paused{false};

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

nt::Result init_v5(void** context, uint64_t comm_id, size_t, size_t, nt::Logger, nt::NvlDomainInfo*, nt::TunerConstants*) {
  g_interface.store(5);
  *context = new TunerContext{comm_id};
  return nccl_profiler::kSuccess;
}

nt::Result init_v6(void** context, uint64_t comm_id, size_t, size_t, nt::Logger, nt::NvlDomainInfo*, nt::TunerConstants*) {
  g_interface.store(6);
  *context = new TunerContext{comm_id};
  return nccl_profiler::kSuccess;
}

// v7: v6's functions; only its constants (which the lab never reads or writes) have more rows.
nt::Result init_v7(void** context, uint64_t comm_id, size_t, size_t, nt::Logger, nt::NvlDomainInfo*, nt::TunerConstants*) {
  g_interface.store(7);
  *context = new TunerContext{comm_id};
  return nccl_profiler::kSuccess;
}

nt::Result init_v4(size_t, size_t, nt::Logger, void** context) {
  g_interface.store(4);
  *context = new TunerContext{0};
  return nccl_profiler::kSuccess;
}

nt::Result get_coll_info(void* context, int coll_type, size_t n_bytes, int pipe_ops, float** cost_table, int n_algo, int n_proto, int,
                         int*) {
  if (g_paused.load(std::memory_order_relaxed)) return nccl_profiler::kSuccess;
  g_calls.fetch_add(1, std::memory_order_relaxed);
  TunerRecord r{};
  auto* ctx = static_cast<TunerContext*>(context);
  r.comm = ctx ? ctx->comm : 0;
  r.n_bytes = n_bytes;
  r.coll_type = coll_type;
  r.pipe_ops = pipe_ops;
  r.n_algo = n_algo < kTunerAlgorithms ? n_algo : kTunerAlgorithms;
  r.n_proto = n_proto < kTunerProtocols ? n_proto : kTunerProtocols;
  // NCCL passes its [numAlgo][numProto] array of floats itself, cast to float**.
  const float* table = reinterpret_cast<const float*>(cost_table);
  for (int a = 0; a < r.n_algo; a++)
    for (int p = 0; p < r.n_proto; p++) r.cost_us[a][p] = table ? table[a * n_proto + p] : -1.0f;
  // Only where the record names its communicator (v5, v6): v4's records all say 0, and a repeat left
  // out there would let another communicator's table stand for this one's.
  if (ctx && ctx->comm != 0) {
    if (ctx->recorded && ctx->coll_type == coll_type && ctx->n_bytes == n_bytes && ctx->pipe_ops == pipe_ops && ctx->n_algo == r.n_algo &&
        ctx->n_proto == r.n_proto && std::memcmp(ctx->cost_us, r.cost_us, sizeof r.cost_us) == 0)
      return nccl_profiler::kSuccess;
    ctx->recorded = true;
    ctx->coll_type = coll_type;
    ctx->n_bytes = n_bytes;
    ctx->pipe_ops = pipe_ops;
    ctx->n_algo = r.n_algo;
    ctx->n_proto = r.n_proto;
    std::memcpy(ctx->cost_us, r.cost_us, sizeof r.cost_us);
  }
  r.host_ns = monotonic_ns();
  tuner_ring().push(r);
  return nccl_profiler::kSuccess;
}

nt::Result finalize(void* context) {
  delete static_cast<TunerContext*>(context);
  return nccl_profiler::kSuccess;
}

}  // namespace

Ring<TunerRecord>& tuner_ring() {
  static Ring<TunerRecord> r(size_t{1} << 14);
  return r;
}
uint64_t tuner_calls() { return g_calls.load(); }
int tuner_interface() { return g_interface.load(); }
void set_tuner_paused(bool paused) { g_paused.store(paused); }

}  // namespace clab

// NCCL 2.30 and later look up ncclTunerPlugin_v6 first, 2.28 and 2.29 ncclTunerPlugin_v5, 2.24 to
// 2.27 ncclTunerPlugin_v4; NVIDIA's repository after 2.30.7 adds ncclTunerPlugin_v7 (tuner_v7.h:
// v6's table, with constants for more compute capabilities). v6's and v7's getChunkSize is left
// null: NCCL then keeps the chunk size it computed (src/enqueue.cc calls it only where it is set),
// as a tuner that only reads must.
extern "C" {

__attribute__((visibility("default")))
clab::nccl_tuner::TableV6 ncclTunerPlugin_v7 = {"clab", clab::init_v7, clab::get_coll_info, clab::finalize, nullptr};
__attribute__((visibility("default")))
clab::nccl_tuner::TableV6 ncclTunerPlugin_v6 = {"clab", clab::init_v6, clab::get_coll_info, clab::finalize, nullptr};
__attribute__((visibility("default")))
clab::nccl_tuner::TableV5 ncclTunerPlugin_v5 = {"clab", clab::init_v5, clab::get_coll_info, clab::finalize};
__attribute__((visibility("default")))
clab::nccl_tuner::TableV4 ncclTunerPlugin_v4 = {"clab", clab::init_v4, clab::get_coll_info, clab::finalize};

__attribute__((visibility("default"))) uint32_t clab_tuner_drain(clab::TunerRecord* out, uint32_t max) {
  return clab::tuner_ring().drain(out, max);
}
}
