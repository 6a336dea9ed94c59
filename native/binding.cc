// The Node-API face of the addon (src/worker/native-api.ts): the module's functions. With
// binding_comm.cc (the communicator object) the only files that include napi.h. An nccl
// communicator is joined off the JS thread (ncclCommInitRank waits for every rank).
#include <algorithm>
#include <memory>
#include <string>

#include "backends.h"
#include "binding.h"
#include "cpu_comm.h"
#include "errors.h"
#include "gemm.h"
#include "nccl_comm.h"
#include "shm_segment.h"
#include "topology.h"

namespace {

using namespace clab;
using namespace clab::binding;

// ---- module functions ---------------------------------------------------------------------

struct AddonData {
  Napi::FunctionReference comm_ctor;
};

Napi::Object wrap_comm(Napi::Env env, NewComm made) {
  AddonData* data = env.GetInstanceData<AddonData>();
  return data->comm_ctor.New({Napi::External<NewComm>::New(env, &made)});
}

Napi::Object availability(Napi::Env env, const BackendStatus& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("available", Napi::Boolean::New(env, s.available));
  if (!s.available) o.Set("reason", Napi::String::New(env, s.reason));
  if (s.devices > 0) o.Set("devices", Napi::Number::New(env, s.devices));
  return o;
}

Napi::Value Backends(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  o.Set("cpu", availability(env, cpu_backend_status()));
  o.Set("nccl", availability(env, nccl_backend_status()));
  return o;
}

Napi::Value CpuCreateUniqueId(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  try {
    const int world = static_cast<int>(get_int(info[0], "world", 1, kMaxWorld));
    return Napi::String::New(env, CpuComm::create_unique_id(world));
  } catch (const ClabError& e) {
    throw make_error(env, e.code_name(), e.what(), -1);
  }
}

Napi::Value CpuCommInit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int world_hint = info[2].IsNumber() ? info[2].As<Napi::Number>().Int32Value() : -1;
  const int rank_hint = info[1].IsNumber() ? info[1].As<Napi::Number>().Int32Value() : -1;
  NewComm made;
  try {
    const std::string id = get_string(info[0], "id");
    const int world = static_cast<int>(get_int(info[2], "world", 1, kMaxWorld));
    const int rank = static_cast<int>(get_int(info[1], "rank", 0, world - 1));
    made.comm = std::make_shared<CpuComm>(id, rank, world);
  } catch (const ClabError& e) {
    throw make_error(env, e.code_name(), e.what(), rank_hint >= 0 && rank_hint < std::max(world_hint, 1) ? rank_hint : -1);
  }
  return wrap_comm(env, std::move(made));
}

Napi::Value NcclCreateUniqueId(const Napi::CallbackInfo& info) {
  try {
    return Napi::String::New(info.Env(), NcclComm::create_unique_id());
  } catch (const ClabError& e) {
    throw make_error(info.Env(), e.code_name(), e.what(), 0);
  }
}

/** ncclCommInitRank blocks until every rank has joined: it runs on a libuv worker thread. */
class NcclInit : public Napi::AsyncWorker {
 public:
  NcclInit(Napi::Env env, std::string id, int rank, int world, int device, unsigned priority_streams)
      : Napi::AsyncWorker(env, "clab-nccl-init"), deferred_(env), id_(std::move(id)), rank_(rank), world_(world), device_(device),
        priority_streams_(priority_streams) {}
  Napi::Promise promise() { return deferred_.Promise(); }

 protected:
  void Execute() override {
    try {
      auto comm = std::make_shared<NcclComm>(id_, rank_, world_, device_, priority_streams_);
      made_.device = comm->device();
      made_.bus_id = comm->bus_id();
      made_.compute_capability = comm->compute_capability();
      made_.comm = std::move(comm);
    } catch (const ClabError& e) {
      code_ = e.code_name();
      SetError(e.what());
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }
  void OnOK() override { deferred_.Resolve(wrap_comm(Env(), std::move(made_))); }
  void OnError(const Napi::Error& e) override {
    deferred_.Reject(make_error(Env(), code_, e.Message(), rank_).Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  std::string id_;
  int rank_, world_, device_;
  unsigned priority_streams_;
  NewComm made_;
  std::string code_ = err_code_name(ErrCode::SystemError);
};

/** Creates a GPU's CUDA context on a libuv worker thread (see NcclComm::prepare_device). */
class GpuPrepare : public Napi::AsyncWorker {
 public:
  GpuPrepare(Napi::Env env, int device, int rank)
      : Napi::AsyncWorker(env, "clab-gpu-prepare"), deferred_(env), device_(device), rank_(rank) {}
  Napi::Promise promise() { return deferred_.Promise(); }

 protected:
  void Execute() override {
    try {
      NcclComm::prepare_device(device_, rank_);
    } catch (const ClabError& e) {
      code_ = e.code_name();
      SetError(e.what());
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }
  void OnOK() override { deferred_.Resolve(Env().Undefined()); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(make_error(Env(), code_, e.Message(), rank_).Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  int device_, rank_;
  std::string code_ = err_code_name(ErrCode::SystemError);
};

Napi::Value GpuPrepareDevice(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  try {
    const int device = static_cast<int>(get_int(info[0], "device", 0, 1023));
    const int rank = static_cast<int>(get_int(info[1], "rank", 0, kMaxWorld - 1));
    auto* worker = new GpuPrepare(env, device, rank);
    Napi::Promise p = worker->promise();
    worker->Queue();
    return p;
  } catch (const ClabError& e) {
    throw make_error(env, e.code_name(), e.what(), -1);
  }
}

Napi::Value NcclCommInit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  try {
    const std::string id = get_string(info[0], "id");
    const int world = static_cast<int>(get_int(info[2], "world", 1, kMaxWorld));
    const int rank = static_cast<int>(get_int(info[1], "rank", 0, world - 1));
    const int device = static_cast<int>(get_int(info[3], "device", 0, 1023));
    // Optional: bit i set = stream i is made at the highest CUDA priority (see NcclComm).
    const unsigned priority = info.Length() > 4 && !info[4].IsUndefined()
                                  ? static_cast<unsigned>(get_int(info[4], "highPriorityStreams", 0, (1 << kMaxStreams) - 1))
                                  : 0u;
    auto* worker = new NcclInit(env, id, rank, world, device, priority);
    Napi::Promise p = worker->promise();
    worker->Queue();
    return p;
  } catch (const ClabError& e) {
    throw make_error(env, e.code_name(), e.what(), -1);
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

Napi::Value Topology(const Napi::CallbackInfo& info) {
  return topology_object(info.Env(), read_topology(detailed_option(info)));
}

/** read_topology on a libuv worker thread: the first CUDA call of a process (cuInit) takes a while. */
class TopologyWorker : public Napi::AsyncWorker {
 public:
  TopologyWorker(Napi::Env env, bool detailed) : Napi::AsyncWorker(env, "clab-topology"), deferred_(env), detailed_(detailed) {}
  Napi::Promise promise() { return deferred_.Promise(); }

 protected:
  void Execute() override { topology_ = read_topology(detailed_); }
  void OnOK() override { deferred_.Resolve(topology_object(Env(), topology_)); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  bool detailed_;
  clab::Topology topology_;
};

Napi::Value TopologyAsync(const Napi::CallbackInfo& info) {
  auto* worker = new TopologyWorker(info.Env(), detailed_option(info));
  Napi::Promise p = worker->promise();
  worker->Queue();
  return p;
}


// Not part of NativeAddon: C of the gemm stand-in, for tests that check its values.
Napi::Value GemmResult(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  try {
    Dtype dtype;
    const std::string d = get_string(info[0], "dtype");
    if (!parse_dtype(d, &dtype)) throw_invalid("dtype: unknown dtype '" + d + "' (expected one of " + kDtypeList + ")");
    const uint64_t m = static_cast<uint64_t>(get_int(info[1], "m", 0, 1ll << 40));
    const uint64_t n = static_cast<uint64_t>(get_int(info[2], "n", 0, 1ll << 40));
    const uint64_t k = static_cast<uint64_t>(get_int(info[3], "k", 0, 1ll << 40));
    validate_gemm("gemm", dtype, m, n, k);
    GemmWorkspace ws;
    ws.run(dtype, m, n, k);
    return Napi::Buffer<uint8_t>::Copy(env, ws.c().data(), ws.c().size());
  } catch (const ClabError& e) {
    throw make_error(env, e.code_name(), e.what(), -1);
  }
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData();
  data->comm_ctor = Napi::Persistent(define_comm_class(env));
  env.SetInstanceData(data);
  exports.Set("backends", Napi::Function::New(env, Backends, "backends"));
  exports.Set("cpuCreateUniqueId", Napi::Function::New(env, CpuCreateUniqueId, "cpuCreateUniqueId"));
  exports.Set("cpuCommInit", Napi::Function::New(env, CpuCommInit, "cpuCommInit"));
  exports.Set("ncclCreateUniqueId", Napi::Function::New(env, NcclCreateUniqueId, "ncclCreateUniqueId"));
  exports.Set("ncclCommInit", Napi::Function::New(env, NcclCommInit, "ncclCommInit"));
  exports.Set("gpuPrepareDevice", Napi::Function::New(env, GpuPrepareDevice, "gpuPrepareDevice"));
  exports.Set("topology", Napi::Function::New(env, Topology, "topology"));
  exports.Set("topologyAsync", Napi::Function::New(env, TopologyAsync, "topologyAsync"));
  exports.Set("_gemmResult", Napi::Function::New(env, GemmResult, "_gemmResult"));
  return exports;
}

}  // namespace

NODE_API_MODULE(clab_native, Init)
