// The lab's NCCL profiler plug-in (clab_profiler.so, beside the addon; the rank sets
// NCCL_PROFILER_PLUGIN to it). NCCL calls it for every collective, p2p and kernel channel (and
// proxy operation and step where the network carries the data, and, through v6, every collective
// it runs on copy engines); it keeps what the lab joins to its
// steps in a ring that the addon drains through clab_profiler_drain. It links nothing of NCCL or
// CUDA and allocates nothing per event: handles are slots of a fixed table, reused in turn.
#include <time.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "profiler/nccl_profiler_abi.h"
#include "profiler/profile_ring.h"
#include "profiler/tuner_plugin.h"

namespace clab {
namespace {

namespace np = nccl_profiler;

constexpr size_t kRingRecords = size_t{1} << 16;
// An event's slot is reused after this many later events; NCCL ends a kernel channel's event well
// before that many events follow its collective's.
constexpr uint64_t kSlots = uint64_t{1} << 16;

struct Context {
  uint64_t comm;
  int rank;
};

// A ProxyOp's slot sums its steps; a ProxyStep's slot (never a record of its own) follows its state.
struct ProxySums {
  uint32_t steps;
  uint64_t bytes, first_ns, last_ns;
  uint64_t wait_ns[4];
};
struct StepState {
  struct Slot* op;    // its ProxyOp's slot, or null
  uint64_t op_id;     // that slot's id when the step started (a reused slot is not its op)
  uint64_t start_ns;  // when the step started
  uint64_t state_ns;  // when its current state began
  uint64_t bytes;     // the most any state said it moved
  int state;          // NCCL's state number, -1 before the first
};

struct Slot {
  uint64_t id;
  uint64_t comm;
  ProfileKind kind;
  union {
    ProxySums proxy;  // ProxyOp
    StepState step;   // ProxyStep
  };
};

Ring<ProfileRecord>& ring() {
  static Ring<ProfileRecord> r(kRingRecords);
  return r;
}
Slot g_slots[kSlots];
std::atomic<uint64_t> g_next_id{0};
std::atomic<uint64_t> g_inits{0};
std::atomic<int> g_mask{0};
// NCCL's activation mask (one per process, read as each operation is enqueued): init is handed its
// address, and clab_profiler_pause clears it and sets it back.
std::atomic<int*> g_nccl_mask{nullptr};
std::atomic<int> g_interface{0};

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

template <size_t N>
void copy_name(char (&dst)[N], const char* src) {
  if (!src) return;
  std::strncpy(dst, src, sizeof dst - 1);
  dst[sizeof dst - 1] = '\0';
}

/** What a call's descriptor (Coll, CeColl, P2p) says of it alike: its count, peer (a collective's root), function and type. */
template <class Call>
void call_fields(ProfileRecord& r, const Call& call, int peer) {
  r.count = call.count;
  r.peer = peer;
  copy_name(r.func, call.func);
  copy_name(r.datatype, call.datatype);
}

/** The slot behind a handle NCCL gives back, or null for one that is not ours. */
Slot* slot_of(void* handle) {
  auto* s = static_cast<Slot*>(handle);
  return s >= g_slots && s < g_slots + kSlots ? s : nullptr;
}

ProfileRecord record_of(const Slot& s, ProfilePoint point) {
  ProfileRecord r{};
  r.id = s.id;
  r.comm = s.comm;
  r.kind = static_cast<uint8_t>(s.kind);
  r.point = static_cast<uint8_t>(point);
  r.host_ns = monotonic_ns();
  return r;
}

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}

// Kernel channels (their GPU times) unless CLAB_NCCL_KERNEL_EVENTS=0; proxy operations and steps
// where the network carries the data (more than one node) unless CLAB_NCCL_PROXY_EVENTS=0, and on
// one node too with CLAB_NCCL_PROXY_EVENTS=1; none at all with CLAB_NCCL_EVENTS=0 (the plug-ins
// loaded, every event off: what loading them costs).
// Through v6 also copy-engine collectives (one start per call; NCCL 2.28, which takes v5, has none).
int activation_mask(int n_nodes, bool copy_engine) {
  if (env_is("CLAB_NCCL_EVENTS", "0")) return 0;
  int mask = static_cast<int>(np::kColl | np::kP2p);
  if (copy_engine) mask |= static_cast<int>(np::kCeColl);
  if (!env_is("CLAB_NCCL_KERNEL_EVENTS", "0")) mask |= static_cast<int>(np::kKernelCh);
  const bool proxy = env_is("CLAB_NCCL_PROXY_EVENTS", "1") || (n_nodes > 1 && !env_is("CLAB_NCCL_PROXY_EVENTS", "0"));
  if (proxy) mask |= static_cast<int>(np::kProxyOp | np::kProxyStep);
  return mask;
}

int wait_of(int state) {
  switch (state) {
    case np::kProxyStepSendGpuWait:
    case np::kProxyStepRecvGpuWait: return kWaitGpu;
    case np::kProxyStepSendPeerWait: return kWaitPeer;
    case np::kProxyStepSendWait:
    case np::kProxyStepRecvWait: return kWaitNetwork;
    case np::kProxyStepRecvFlushWait: return kWaitFlush;
    default: return -1;
  }
}

/** Closes a step's current state at `now`, adding its time to its ProxyOp's sums. */
void close_state(StepState& st, uint64_t now) {
  const int w = st.state >= 0 ? wait_of(st.state) : -1;
  if (w >= 0 && st.op && st.op->id == st.op_id && now > st.state_ns) st.op->proxy.wait_ns[w] += now - st.state_ns;
  st.state_ns = now;
}

np::Result init(void** context, uint64_t comm_id, int* activation, int n_nodes, int n_ranks, int rank, bool copy_engine) {
  const int mask = activation_mask(n_nodes, copy_engine);
  *activation = mask;
  g_mask.store(mask);
  g_nccl_mask.store(activation);
  g_inits.fetch_add(1);
  *context = new Context{comm_id, rank};
  ProfileRecord r{};
  r.kind = static_cast<uint8_t>(ProfileKind::Comm);
  r.comm = comm_id;
  r.rank = rank;
  r.peer = n_ranks;
  r.host_ns = monotonic_ns();
  ring().push(r);
  return np::kSuccess;
}

np::Result init_v5(void** c, uint64_t id, int* m, const char*, int nodes, int ranks, int rank, np::Logger) {
  g_interface.store(5);
  return init(c, id, m, nodes, ranks, rank, false);
}

np::Result init_v6(void** c, uint64_t id, int* m, const char*, int nodes, int ranks, int rank, np::Logger) {
  g_interface.store(6);
  return init(c, id, m, nodes, ranks, rank, true);
}

// v7 (NCCL 2.31): v6's events, a Coll's descriptor naming the kernel NCCL launched, and a call's
// descriptor (Coll, P2p, CeColl) the tag it was made with.
np::Result init_v7(void** c, uint64_t id, int* m, const char*, int nodes, int ranks, int rank, np::Logger) {
  g_interface.store(7);
  return init(c, id, m, nodes, ranks, rank, true);
}

ProfileKind kind_of(uint64_t type) {
  switch (type) {
    case np::kColl: return ProfileKind::Coll;
    case np::kP2p: return ProfileKind::P2p;
    case np::kKernelCh: return ProfileKind::KernelCh;
    case np::kProxyOp: return ProfileKind::ProxyOp;
    case np::kProxyStep: return ProfileKind::ProxyStep;
    case np::kCeColl: return ProfileKind::CeColl;
    default: return ProfileKind::Comm;  // not one we keep
  }
}

np::Result start_event(void* context, void** handle, np::EventDescr* d) {
  *handle = nullptr;
  const ProfileKind kind = kind_of(d->type);
  if (kind == ProfileKind::Comm || !context) return np::kSuccess;
  if (kind == ProfileKind::CeColl) {
    // Its start says all the lab reads (that NCCL ran the call on copy engines): no handle, so NCCL
    // makes no stop call.
    ProfileRecord r{};
    r.id = g_next_id.fetch_add(1) + 1;
    r.comm = static_cast<Context*>(context)->comm;
    r.kind = static_cast<uint8_t>(kind);
    r.point = static_cast<uint8_t>(ProfilePoint::Start);
    r.host_ns = monotonic_ns();
    r.rank = d->rank;
    r.seq = d->ce_coll.seq_number;
    call_fields(r, d->ce_coll, d->ce_coll.root);
    if (g_interface.load() >= 7) r.user_tag = d->ce_coll.user_tag;
    copy_name(r.algo, "CE");
    copy_name(r.proto, d->ce_coll.sync_strategy);
    ring().push(r);
    return np::kSuccess;
  }
  const uint64_t id = g_next_id.fetch_add(1) + 1;
  Slot& s = g_slots[(id - 1) % kSlots];
  s.id = id;
  s.comm = static_cast<Context*>(context)->comm;
  s.kind = kind;
  if (kind == ProfileKind::ProxyStep) {
    // Kept in its slot only: its ProxyOp's stop says what its steps did.
    Slot* op = slot_of(d->parent);
    if (op && op->kind != ProfileKind::ProxyOp) op = nullptr;
    const uint64_t now = monotonic_ns();
    s.step = StepState{op, op ? op->id : 0, now, now, 0, -1};
    *handle = &s;
    return np::kSuccess;
  }
  if (kind == ProfileKind::ProxyOp) s.proxy = ProxySums{};
  ProfileRecord r = record_of(s, ProfilePoint::Start);
  if (const Slot* parent = slot_of(d->parent)) r.parent = parent->id;
  r.rank = d->rank;
  switch (kind) {
    case ProfileKind::Coll:
      r.seq = d->coll.seq_number;
      call_fields(r, d->coll, d->coll.root);
      r.n_channels = d->coll.n_channels;
      r.n_warps = d->coll.n_warps;
      copy_name(r.algo, d->coll.algo);
      copy_name(r.proto, d->coll.proto);
      if (g_interface.load() >= 7) {
        copy_name(r.kernel, d->coll.kernel_variant);
        r.symmetric = static_cast<uint8_t>(d->coll.is_sym_coll);
        r.user_tag = d->coll.user_tag;
      }
      break;
    case ProfileKind::P2p:
      call_fields(r, d->p2p, d->p2p.peer);
      r.n_channels = d->p2p.n_channels;
      if (g_interface.load() >= 7) r.user_tag = d->p2p.user_tag;
      break;
    case ProfileKind::KernelCh:
      r.channel = d->kernel_ch.channel_id;
      r.gpu_ns = d->kernel_ch.p_timer;
      break;
    case ProfileKind::ProxyOp:
      r.channel = d->proxy_op.channel_id;
      r.peer = d->proxy_op.peer;
      r.steps = d->proxy_op.n_steps;
      r.chunk = d->proxy_op.chunk_size;
      r.is_send = static_cast<uint8_t>(d->proxy_op.is_send != 0);
      break;
    case ProfileKind::ProxyStep:
    case ProfileKind::CeColl:
    case ProfileKind::Comm: break;
  }
  ring().push(r);
  *handle = &s;
  return np::kSuccess;
}

np::Result stop_event(void* handle) {
  Slot* s = slot_of(handle);
  if (!s) return np::kSuccess;
  if (s->kind == ProfileKind::ProxyStep) {
    StepState& st = s->step;
    const uint64_t now = monotonic_ns();
    close_state(st, now);
    if (st.op && st.op->id == st.op_id) {
      ProxySums& p = st.op->proxy;
      p.steps++;
      p.bytes += st.bytes;
      if (!p.first_ns || st.start_ns < p.first_ns) p.first_ns = st.start_ns;
      if (now > p.last_ns) p.last_ns = now;
    }
    return np::kSuccess;
  }
  // A kernel channel's stop says nothing its start and its end on the GPU's clock (ChannelEnd) have
  // not: not kept, a third fewer records per channel and call for the ring and the rank to carry.
  if (s->kind == ProfileKind::KernelCh) return np::kSuccess;
  ProfileRecord r = record_of(*s, ProfilePoint::Stop);
  if (s->kind == ProfileKind::ProxyOp) {
    r.steps = static_cast<int32_t>(s->proxy.steps);
    r.count = s->proxy.bytes;
    r.first_step_ns = s->proxy.first_ns;
    r.last_step_ns = s->proxy.last_ns;
    for (int w = 0; w < 4; w++) r.wait_ns[w] = s->proxy.wait_ns[w];
  }
  ring().push(r);
  return np::kSuccess;
}

np::Result record_event_state(void* handle, int state, np::StateArgs* args) {
  Slot* s = slot_of(handle);
  if (!s) return np::kSuccess;
  if (s->kind == ProfileKind::ProxyStep) {
    StepState& st = s->step;
    close_state(st, monotonic_ns());
    st.state = state;
    if (args && args->proxy_step.trans_size > st.bytes) st.bytes = args->proxy_step.trans_size;
    return np::kSuccess;
  }
  ProfileRecord r = record_of(*s, state == np::kKernelChStop ? ProfilePoint::ChannelEnd : ProfilePoint::State);
  r.state = static_cast<uint8_t>(state);
  if (args && s->kind == ProfileKind::KernelCh) r.gpu_ns = args->kernel_ch.p_timer;
  ring().push(r);
  return np::kSuccess;
}

np::Result finalize(void* context) {
  delete static_cast<Context*>(context);
  return np::kSuccess;
}

}  // namespace
}  // namespace clab

// NCCL 2.28 looks up ncclProfiler_v5, 2.29 and 2.30 ncclProfiler_v6 first, 2.31 ncclProfiler_v7:
// the same functions serve all three; v6's and v7's init also ask for copy-engine collectives.
extern "C" {

__attribute__((visibility("default"))) clab::nccl_profiler::Table ncclProfiler_v5 = {
    "clab", clab::init_v5, clab::start_event, clab::stop_event, clab::record_event_state, clab::finalize};
__attribute__((visibility("default"))) clab::nccl_profiler::Table ncclProfiler_v6 = {
    "clab", clab::init_v6, clab::start_event, clab::stop_event, clab::record_event_state, clab::finalize};
__attribute__((visibility("default"))) clab::nccl_profiler::Table ncclProfiler_v7 = {
    "clab", clab::init_v7, clab::start_event, clab::stop_event, clab::record_event_state, clab::finalize};

__attribute__((visibility("default"))) uint32_t clab_profiler_drain(clab::ProfileRecord* out, uint32_t max) {
  return clab::ring().drain(out, max);
}

// The addon pauses the plug-ins while it issues the loop that time per op and busbw come from, and
// resumes them for the per-repetition run, which gives the events: kernel channels cost the most
// (NCCL adds proxy work to see each channel's end), and every event and tuner call costs the host.
__attribute__((visibility("default"))) void clab_profiler_pause(int paused) {
  clab::set_tuner_paused(paused != 0);
  int* mask = clab::g_nccl_mask.load();
  if (mask) __atomic_store_n(mask, paused ? 0 : clab::g_mask.load(), __ATOMIC_RELAXED);
}

__attribute__((visibility("default"))) void clab_profiler_stats(clab::ProfileStats* out) {
  clab::ProfileStats s{};
  s.version = clab::kProfileRecordVersion;
  s.record_size = sizeof(clab::ProfileRecord);
  s.recorded = clab::ring().recorded();
  s.dropped = clab::ring().dropped() + clab::tuner_ring().dropped();
  s.inits = clab::g_inits.load();
  s.mask = clab::g_mask.load();
  s.interface = clab::g_interface.load();
  s.tuner_calls = clab::tuner_calls();
  s.tuner_interface = clab::tuner_interface();
  *out = s;
}
}
