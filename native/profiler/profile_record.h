// What the profiler plug-in (clab_profiler.so) keeps of NCCL's events, and the C entry points
// through which the addon, which opens the same library, reads them. Plain data, no NCCL type:
// the addon includes this header and nothing else of the plug-in.
#pragma once

#include <cstdint>

namespace clab {

/** Bumped whenever ProfileRecord or the entry points change; the reader refuses another. */
constexpr uint32_t kProfileRecordVersion = 6;

/**
 * CeColl: a collective NCCL ran on copy engines (profiler v6, NCCL 2.29 and later: CTA policy zero on
 * symmetric windows), kept at its start only, with its function, count, root, datatype, algo "CE"
 * and its synchronisation (proto: "MC" over NVLink multicast, "UC" without).
 */
enum class ProfileKind : uint8_t { Comm = 1, Coll = 2, P2p = 3, KernelCh = 4, ProxyOp = 5, ProxyStep = 6, CeColl = 7 };
/**
 * Start and Stop of an event; ChannelEnd: a KernelCh's end as the GPU timed it; State: another state
 * (`state`). A ProxyStep is never kept as a record of its own: the plug-in adds each step into its
 * ProxyOp, whose Stop says how many steps ran, the bytes they moved and where their time went.
 */
enum class ProfilePoint : uint8_t { Start = 0, Stop = 1, ChannelEnd = 2, State = 3 };

struct ProfileRecord {
  uint64_t id;       // the event (unique in the process; a Comm record's is 0)
  uint64_t parent;   // its parent event's id, 0 when none
  uint64_t comm;     // NCCL's hash of the communicator
  uint64_t host_ns;  // CLOCK_MONOTONIC when NCCL called the plug-in
  uint64_t gpu_ns;   // KernelCh: the GPU's %globaltimer (0 where NCCL gave none)
  uint64_t seq;      // Coll: its sequence number; CeColl: NCCL's count of copy-engine synchronisations
  uint64_t count;    // Coll, P2p, CeColl: elements (NCCL counts a CeColl all_gather's in bytes); ProxyOp stop: bytes its steps moved
  int32_t rank;      // Comm: the rank in it
  int32_t peer;      // Coll, CeColl: root; P2p, ProxyOp: the peer; Comm: the number of ranks
  int32_t steps;     // ProxyOp start: the steps NCCL planned; stop: the steps that ran
  int32_t chunk;     // ProxyOp: chunk size
  uint8_t kind;      // ProfileKind
  uint8_t point;     // ProfilePoint
  uint8_t channel;   // KernelCh, ProxyOp
  uint8_t n_channels;
  uint8_t n_warps;
  uint8_t is_send;
  uint8_t state;      // the NCCL state number of a State point
  uint8_t symmetric;  // Coll through profiler v7: 1 where NCCL ran it on a symmetric kernel
  char func[16];
  char datatype[16];
  char algo[16];
  char proto[16];
  // ProxyOp stop: its steps' first start and last stop (CLOCK_MONOTONIC), and the time its steps
  // spent in each state, summed: kWaitGpu, kWaitPeer, kWaitNetwork, kWaitFlush.
  uint64_t first_step_ns;
  uint64_t last_step_ns;
  uint64_t wait_ns[4];
  char kernel[32];  // Coll through profiler v7: the kernel NCCL launched ("" before v7)
  // Coll, P2p, CeColl through profiler v7: the tag the call was made with (NCCL 2.31's
  // ncclCollConfig_t.userProfilerTag: the lab's is its step's index + 1); 0: none, or before v7.
  uint64_t user_tag;
};

/** Where a proxy step's time goes (ProfileRecord::wait_ns), from NCCL's ProxyStep states. */
enum ProxyWait : int { kWaitGpu = 0, kWaitPeer = 1, kWaitNetwork = 2, kWaitFlush = 3 };

/** One call of the tuner: NCCL's predicted time per algorithm × protocol for a collective it is about to enqueue. */
constexpr int kTunerAlgorithms = 7;  // NCCL 2.28: Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT
constexpr int kTunerProtocols = 3;   // LL, LL128, Simple
struct TunerRecord {
  uint64_t comm;      // NCCL's hash of the communicator (0 where NCCL's interface gives none: v4)
  uint64_t host_ns;   // CLOCK_MONOTONIC at the call
  uint64_t n_bytes;   // NCCL's size of the call
  int32_t coll_type;  // ncclFunc_t: Broadcast 0, Reduce 1, AllGather 2, ReduceScatter 3, AllReduce 4, …
  int32_t pipe_ops;
  int32_t n_algo, n_proto;                           // the table's shape as NCCL gave it (at most the arrays' below)
  float cost_us[kTunerAlgorithms][kTunerProtocols];  // -1: ruled out
};

struct ProfileStats {
  uint32_t version;         // kProfileRecordVersion
  uint32_t record_size;     // sizeof(ProfileRecord)
  uint64_t recorded;        // records kept so far
  uint64_t dropped;         // records lost because the ring was full
  uint64_t inits;           // communicators NCCL initialised the plug-in for
  int32_t mask;             // the activation mask set in init
  int32_t interface;        // the interface NCCL took: 5, 6 or 7 (0 before any init)
  uint64_t tuner_calls;     // getCollInfo calls seen while not paused (NCCL_TUNER_PLUGIN); repeats are not recorded
  int32_t tuner_interface;  // 4, 5 or 6 (0: NCCL never initialised the tuner)
  int32_t reserved;
};

}  // namespace clab

extern "C" {
/** Moves up to `max` records, oldest first, into `out`; returns how many. */
typedef uint32_t (*clab_profiler_drain_fn)(clab::ProfileRecord* out, uint32_t max);
typedef void (*clab_profiler_stats_fn)(clab::ProfileStats* out);
typedef uint32_t (*clab_tuner_drain_fn)(clab::TunerRecord* out, uint32_t max);
/** Pauses (1) or resumes (0) the profiler's events and the tuner's records for operations enqueued from now on. */
typedef void (*clab_profiler_pause_fn)(int paused);
}
