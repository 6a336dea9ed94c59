// The Node-API face of the addon (src/addon/native-api.ts): the module's functions. With
// binding_comm.cc (the communicator object) and binding_values.cc (JS values) the only files that
// include napi.h. Every call takes one plain object and names its backend there; this file is
// where the backends part ways.
// Whatever waits (joining an nccl communicator waits for every rank; a GPU's first CUDA call
// takes a while) runs on a libuv worker thread behind a promise.
#include "binding/binding.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "common/errors.h"
#include "cpu/cpu_comm.h"
#include "cpu/shm_segment.h"
#include "data/data_device.h"
#include "gpu/backends.h"
#include "gpu/gpu_loader.h"
#include "gpu/peer_copy.h"
#include "gpu/topology.h"
#include "nccl/nccl_comm.h"

namespace {

using namespace clab;
using namespace clab::binding;

struct AddonData {
  Napi::FunctionReference comm_ctor;
};

Napi::Object wrap_comm(Napi::Env env, NewComm made) {
  AddonData* data = env.GetInstanceData<AddonData>();
  return data->comm_ctor.New({Napi::External<NewComm>::New(env, &made)});
}

// ---- arguments ----------------------------------------------------------------------------

/** `rank` when it is a valid rank of `world`, else -1: errors name the rank only when it is one. */
int rank_hint(const Napi::Object& o) {
  const Napi::Value r = o.Get("rank"), w = o.Get("world");
  if (!r.IsNumber()) return -1;
  const int rank = r.As<Napi::Number>().Int32Value();
  const int world = w.IsNumber() ? w.As<Napi::Number>().Int32Value() : static_cast<int>(kMaxWorld);
  return rank >= 0 && rank < std::max(world, 1) ? rank : -1;
}

// ---- module functions ---------------------------------------------------------------------

Napi::Object availability(Napi::Env env, const BackendStatus& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("available", Napi::Boolean::New(env, s.available));
  if (!s.available) o.Set("reason", Napi::String::New(env, s.reason));
  if (s.devices > 0) o.Set("devices", Napi::Number::New(env, s.devices));
  return o;
}

// backends({ ncclLibrary }?): ncclLibrary judges nccl by that library (a run's --nccl), not the process's own.
Napi::Value Backends(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string library;
  try {
    if (info[0].IsObject() && !info[0].As<Napi::Object>().Get("ncclLibrary").IsUndefined())
      library = get_string(info[0].As<Napi::Object>().Get("ncclLibrary"), "ncclLibrary");
  } catch (const ClabError& e) {
    throw make_error(env, e.code_name(), e.what(), -1);
  }
  Napi::Object o = Napi::Object::New(env);
  o.Set("cpu", availability(env, cpu_backend_status()));
  Napi::Object nccl = availability(env, nccl_backend_status(library));
  // The data kernels (data_device.h), as built; whether a GPU's driver takes them shows when a rank joins.
  nccl.Set("dataKernels", Napi::Boolean::New(env, data_kernels_built_in()));
  o.Set("nccl", nccl);
  return o;
}

/**
 * ncclLibraryVersion({ path }?): the NCCL at `path` (absent: the one a rank would load), loaded apart
 * from the process's own, and its ncclGetVersion: { path: the file it was loaded from, version }.
 * Throws CLAB_NCCL_LIBRARY with dlopen's words where it cannot be loaded or is no NCCL.
 */
Napi::Value NcclLibraryVersion(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  try {
    std::string path;
    if (info[0].IsObject() && !info[0].As<Napi::Object>().Get("path").IsUndefined())
      path = get_string(info[0].As<Napi::Object>().Get("path"), "path");
    gpu::NcclProbe probe;
    std::string why;
    if (!gpu::probe_nccl(path, &probe, &why)) throw ClabError("CLAB_NCCL_LIBRARY", why);
    Napi::Object o = Napi::Object::New(env);
    o.Set("path", probe.file);
    o.Set("version", probe.version);
    return o;
  } catch (const ClabError& e) {
    throw make_error(env, e.code_name(), e.what(), -1);
  }
}

/** gpuMemoryTotals(): each visible GPU's total memory by CUDA index, from NVML alone; null when it cannot say (backends.h). */
Napi::Value GpuMemoryTotals(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::vector<uint64_t> totals = gpu_memory_totals_from_nvml();
  if (totals.empty()) return env.Null();
  Napi::Array out = Napi::Array::New(env, totals.size());
  for (size_t i = 0; i < totals.size(); i++) out.Set(static_cast<uint32_t>(i), static_cast<double>(totals[i]));
  return out;
}

/**
 * exitNow(code): ends the process at once, as _exit does: no atexit handlers, no destructors, every
 * thread stopped where it is, and the system reclaims memory, GPU contexts and sockets. For a rank
 * whose work is done and reported, holding a communicator whose teardown only costs time
 * (NcclComm::close says why).
 */
Napi::Value ExitNow(const Napi::CallbackInfo& info) {
  const int code = info[0].IsNumber() ? info[0].As<Napi::Number>().Int32Value() : 0;
  std::fflush(nullptr);
  _exit(code & 0xff);
}

// createUniqueId({ backend, world })
Napi::Value CreateUniqueId(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int rank = -1;
  try {
    const Napi::Object o = get_options(info, "createUniqueId");
    const Backend backend = get_backend(o);
    const int world = static_cast<int>(get_int(o.Get("world"), "world", 1, kMaxWorld));
    if (backend == Backend::Nccl) {
      rank = 0;  // rank 0 makes the id (ncclGetUniqueId): its failures are rank 0's
      return Napi::String::New(env, NcclComm::create_unique_id());
    }
    return Napi::String::New(env, CpuComm::create_unique_id(world));
  } catch (const ClabError& e) {
    throw make_error(env, e.code_name(), e.what(), rank);
  }
}

namespace {

/** commInit's `comms`: [{ maxCTAs?, ctaPolicy? }], each a communicator split off the run's. */
std::vector<CommSetting> get_comm_settings(const Napi::Value& v) {
  std::vector<CommSetting> out;
  if (v.IsUndefined()) return out;
  if (!v.IsArray()) throw_invalid("comms must be an array of { maxCTAs?, ctaPolicy? } (got " + show(v) + ")");
  const Napi::Array arr = v.As<Napi::Array>();
  if (arr.Length() > 16) throw_invalid("comms: at most 16 communicators with settings of their own");
  for (uint32_t i = 0; i < arr.Length(); i++) {
    const std::string at = "comms[" + std::to_string(i) + "]";
    if (!arr.Get(i).IsObject()) throw_invalid(at + " must be an object (got " + show(arr.Get(i)) + ")");
    const Napi::Object o = arr.Get(i).As<Napi::Object>();
    CommSetting s;
    if (!o.Get("maxCTAs").IsUndefined()) s.max_ctas = static_cast<int>(get_int(o.Get("maxCTAs"), at + ".maxCTAs", 1, 64));
    if (!o.Get("ctaPolicy").IsUndefined()) {
      const std::string p = get_string(o.Get("ctaPolicy"), at + ".ctaPolicy");
      if (p == "default") s.cta_policy = gpu::kNcclCtaPolicyDefault;
      else if (p == "efficiency")
        s.cta_policy = gpu::kNcclCtaPolicyEfficiency;
      else if (p == "zero")
        s.cta_policy = gpu::kNcclCtaPolicyZero;
      else
        throw_invalid(at + ".ctaPolicy: unknown policy '" + p + "' (expected default, efficiency or zero)");
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace

// commInit({ backend, id, rank, world, device?, commStreams?, registerBuffers?, comms? }): resolves once this rank has
// joined (nccl: once every rank has, ncclCommInitRank waits for them).
Napi::Value CommInit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int hint = -1;
  try {
    const Napi::Object o = get_options(info, "commInit");
    hint = rank_hint(o);
    const Backend backend = get_backend(o);
    const std::string id = get_string(o.Get("id"), "id");
    const int world = static_cast<int>(get_int(o.Get("world"), "world", 1, kMaxWorld));
    const int rank = static_cast<int>(get_int(o.Get("rank"), "rank", 0, world - 1));
    int device = -1;
    unsigned comm_streams = 0;
    bool register_buffers = false;
    std::vector<CommSetting> settings;
    if (backend == Backend::Nccl) {
      register_buffers = o.Get("registerBuffers").ToBoolean();
      settings = get_comm_settings(o.Get("comms"));
      device = static_cast<int>(get_int(o.Get("device"), "device", 0, 1023));
      // Bit i set: stream i only communicates, and NcclComm makes it at the highest CUDA priority.
      const Napi::Value s = o.Get("commStreams");
      if (!s.IsUndefined()) comm_streams = static_cast<unsigned>(get_int(s, "commStreams", 0, (1 << kMaxStreams) - 1));
    }
    return PromiseWorker<NewComm>::queue(
        env, "clab-comm-init", rank,
        [backend, id, rank, world, device, comm_streams, register_buffers, settings] {
          NewComm made;
          if (backend == Backend::Cpu) {
            made.comm = std::make_shared<CpuComm>(id, rank, world);
            return made;
          }
          auto comm = std::make_shared<NcclComm>(id, rank, world, device, comm_streams, register_buffers, settings);
          made.device = comm->device();
          made.bus_id = comm->bus_id();
          made.compute_capability = comm->compute_capability();
          made.nccl_version = comm->nccl_version();
          made.comm = std::move(comm);
          return made;
        },
        [](Napi::Env e, NewComm& made) -> Napi::Value { return wrap_comm(e, std::move(made)); });
  } catch (const ClabError& e) {
    return rejected(env, e, hint);
  }
}

Napi::Object topology_object(Napi::Env env, const clab::Topology& t) {
  Napi::Object o = Napi::Object::New(env);
  Napi::Array gpus = Napi::Array::New(env, t.gpus.size());
  for (size_t i = 0; i < t.gpus.size(); i++) {
    Napi::Object g = Napi::Object::New(env);
    g.Set("index", t.gpus[i].index);
    g.Set("name", t.gpus[i].name);
    g.Set("memoryBytes", static_cast<double>(t.gpus[i].memory_bytes));
    g.Set("busId", t.gpus[i].bus_id);
    if (t.gpus[i].compute_capability >= 0) g.Set("computeCapability", t.gpus[i].compute_capability);
    if (t.gpus[i].pcie_gen > 0) g.Set("pcieGen", t.gpus[i].pcie_gen);
    if (t.gpus[i].pcie_width > 0) g.Set("pcieWidth", t.gpus[i].pcie_width);
    if (t.gpus[i].nvlink_gbps > 0) {
      g.Set("nvlinkVersion", t.gpus[i].nvlink_version);
      g.Set("nvlinkGbpsPerLink", t.gpus[i].nvlink_gbps);
    }
    gpus.Set(static_cast<uint32_t>(i), g);
  }
  Napi::Array links = Napi::Array::New(env, t.links.size());
  for (size_t i = 0; i < t.links.size(); i++) {
    const GpuLink& l = t.links[i];
    Napi::Object x = Napi::Object::New(env);
    x.Set("a", l.a);
    x.Set("b", l.b);
    x.Set("nvlinks", l.nvlinks);
    x.Set("via", l.via);
    x.Set("pcie", l.pcie);
    if (l.peak_gbps > 0) x.Set("peakGBps", l.peak_gbps);
    else
      x.Set("peakGBps", env.Null());
    if (l.p2p_access >= 0) {
      Napi::Object p = Napi::Object::New(env);
      p.Set("access", l.p2p_access != 0);
      p.Set("performanceRank", l.p2p_rank);
      p.Set("nativeAtomics", l.p2p_atomics > 0);
      x.Set("p2p", p);
    } else {
      x.Set("p2p", env.Null());
    }
    links.Set(static_cast<uint32_t>(i), x);
  }
  Napi::Object versions = Napi::Object::New(env);
  for (const auto& [k, v] : t.versions) versions.Set(k, v);
  Napi::Array problems = Napi::Array::New(env, t.problems.size());
  for (size_t i = 0; i < t.problems.size(); i++) problems.Set(static_cast<uint32_t>(i), t.problems[i]);
  o.Set("gpus", gpus);
  o.Set("links", links);
  o.Set("versions", versions);
  o.Set("problems", problems);
  return o;
}

bool detailed_option(const Napi::CallbackInfo& info) {
  return info[0].IsObject() && info[0].As<Napi::Object>().Get("detailed").ToBoolean();
}

Napi::Value Topology(const Napi::CallbackInfo& info) { return topology_object(info.Env(), read_topology(detailed_option(info))); }

/** topology() off the JS thread: the first CUDA call of a process (cuInit) takes a while. */
Napi::Value TopologyAsync(const Napi::CallbackInfo& info) {
  const bool detailed = detailed_option(info);
  return PromiseWorker<clab::Topology>::queue(
      info.Env(), "clab-topology", -1, [detailed] { return read_topology(detailed); },
      [](Napi::Env e, clab::Topology& t) -> Napi::Value { return topology_object(e, t); });
}

// peerCopy({ backend, rank, device, peer, bytes, warmup, iters }): a plain timed copy from this
// rank's device to the peer's (peer_copy.h), outside any communicator.
Napi::Value PeerCopy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int rank = -1;
  try {
    const Napi::Object o = get_options(info, "peerCopy");
    const Backend backend = get_backend(o);
    rank = static_cast<int>(get_int(o.Get("rank"), "rank", 0, kMaxWorld - 1));
    const int device = backend == Backend::Nccl ? static_cast<int>(get_int(o.Get("device"), "device", 0, 1023)) : -1;
    const int peer = backend == Backend::Nccl ? static_cast<int>(get_int(o.Get("peer"), "peer", 0, 1023)) : -1;
    const size_t bytes = static_cast<size_t>(get_int(o.Get("bytes"), "bytes", 1, int64_t{1} << 40));
    const int warmup = static_cast<int>(get_int(o.Get("warmup"), "warmup", 0, 100000));
    const int iters = static_cast<int>(get_int(o.Get("iters"), "iters", 1, 100000));
    return PromiseWorker<PeerCopyResult>::queue(
        env, "clab-peer-copy", rank,
        [=] {
          return backend == Backend::Nccl ? peer_copy_gpu(device, peer, bytes, warmup, iters, rank) : peer_copy_cpu(bytes, warmup, iters);
        },
        [](Napi::Env e, PeerCopyResult& r) -> Napi::Value {
          Napi::Object out = Napi::Object::New(e);
          Napi::Array start = Napi::Array::New(e, r.start_ns.size()), end = Napi::Array::New(e, r.end_ns.size());
          for (size_t i = 0; i < r.start_ns.size(); i++) {
            start.Set(static_cast<uint32_t>(i), static_cast<double>(r.start_ns[i]));
            end.Set(static_cast<uint32_t>(i), static_cast<double>(r.end_ns[i]));
          }
          out.Set("startNs", start);
          out.Set("endNs", end);
          out.Set("checked", static_cast<double>(r.checked));
          out.Set("wrong", static_cast<double>(r.wrong));
          out.Set("how", r.how);
          return out;
        });
  } catch (const ClabError& e) {
    return rejected(env, e, rank);
  }
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData();
  data->comm_ctor = Napi::Persistent(define_comm_class(env));
  env.SetInstanceData(data);
  exports.Set("backends", Napi::Function::New(env, Backends, "backends"));
  exports.Set("exitNow", Napi::Function::New(env, ExitNow, "exitNow"));
  exports.Set("gpuMemoryTotals", Napi::Function::New(env, GpuMemoryTotals, "gpuMemoryTotals"));
  exports.Set("ncclLibraryVersion", Napi::Function::New(env, NcclLibraryVersion, "ncclLibraryVersion"));
  exports.Set("createUniqueId", Napi::Function::New(env, CreateUniqueId, "createUniqueId"));
  exports.Set("commInit", Napi::Function::New(env, CommInit, "commInit"));
  exports.Set("topology", Napi::Function::New(env, Topology, "topology"));
  exports.Set("topologyAsync", Napi::Function::New(env, TopologyAsync, "topologyAsync"));
  exports.Set("peerCopy", Napi::Function::New(env, PeerCopy, "peerCopy"));
  register_profiler(env, exports);
  register_device_tasks(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(clab_native, Init)
