// A test-only Node-API module (clab_test_hooks.node, never loaded by the lab): what the tests need
// to see that the shipped addon does not show, such as the C matrix of the gemm stand-in.
#include "binding/test_hooks.h"

#include <dlfcn.h>
#include <napi.h>

#include <chrono>
#include <map>
#include <thread>

#include "common/errors.h"
#include "common/gemm.h"
#include "gpu/device_memory.h"
#include "gpu/gpu_errors.h"
#include "gpu/gpu_gemm.h"
#include "gpu/graph_loop.h"
#include "profiler/nccl_profiler_abi.h"
#include "profiler/nccl_tuner_abi.h"

namespace {

using namespace clab;

struct GemmArgs {
  Dtype dtype;
  uint64_t m, n, k;
};

// (dtype, m, n, k) of a test's gemm call, validated as the addon validates a scenario's.
GemmArgs gemm_args(const Napi::CallbackInfo& info) {
  GemmArgs g{};
  const std::string d = info[0].ToString().Utf8Value();
  if (!parse_dtype(d, &g.dtype)) throw_invalid("dtype: unknown dtype '" + d + "'");
  const auto dim = [&](int i) { return static_cast<uint64_t>(info[i].ToNumber().Int64Value()); };
  g.m = dim(1);
  g.n = dim(2);
  g.k = dim(3);
  validate_gemm("gemm", g.dtype, g.m, g.n, g.k);
  return g;
}

// gemmResult(dtype, m, n, k): C of the gemm stand-in, as bytes (a test's arguments, checked loosely).
Napi::Value GemmResult(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  try {
    const GemmArgs g = gemm_args(info);
    GemmWorkspace ws;
    ws.run(g.dtype, g.m, g.n, g.k);
    return Napi::Buffer<uint8_t>::Copy(env, ws.c().data(), ws.c().size());
  } catch (const ClabError& e) {
    Napi::Error err = Napi::Error::New(env, e.what());
    err.Set("code", e.code_name());
    throw err;
  }
}

// gpuGemmResult(dtype, m, n, k): C of the same gemm run by cuBLAS on GPU 0 (operands made as the
// nccl backend makes them), as bytes. Throws where there is no GPU or cuBLAS.
Napi::Value GpuGemmResult(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  try {
    const GemmArgs g = gemm_args(info);
    std::string why;
    const gpu::CudaRuntime* rt = gpu::load_cudart(&why);
    if (!rt) throw ClabError(ErrCode::SystemError, why);
    cuda_check(*rt, rt->cudaSetDevice(0), "cudaSetDevice", 0);
    gpu::cudaStream_t stream = nullptr;
    cuda_check(*rt, rt->cudaStreamCreateWithFlags(&stream, gpu::kCudaStreamNonBlocking), "cudaStreamCreateWithFlags", 0);
    std::vector<uint8_t> c(g.m * g.n * dtype_size(g.dtype));
    {
      DeviceMemory memory(*rt, 0, 0);
      GpuGemm gemm(*rt, memory, stream, 0);
      gemm.prepare(g.dtype, g.m, g.n, g.k);
      gemm.issue();
      cuda_check(*rt, rt->cudaMemcpyAsync(c.data(), gemm.result(), c.size(), gpu::cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync", 0);
      cuda_check(*rt, rt->cudaStreamSynchronize(stream), "cudaStreamSynchronize", 0);
    }
    rt->cudaStreamDestroy(stream);
    return Napi::Buffer<uint8_t>::Copy(env, c.data(), c.size());
  } catch (const ClabError& e) {
    Napi::Error err = Napi::Error::New(env, e.what());
    err.Set("code", e.code_name());
    throw err;
  }
}

// profilerPlay(library, symbol, calls): plays NCCL's side of the profiler interface against the
// plug-in at `library` through its table `symbol` (ncclProfiler_v5, _v6 or _v7), as NCCL would, without
// a GPU (a start's `type`: coll, p2p, proxy-op, proxy-step, kernel-ch, ce-coll, or a group). Each call is { call: 'init' | 'start' |
// 'state' | 'stop' | 'finalize', ... }; contexts and handles are named by the test (`context`, `handle`, `parent`); `pause` pauses and
// resumes the plug-ins as the addon does around a loop; `sleep` lets `us` microseconds pass. Returns the activation mask after each init
// and pause.
Napi::Value ProfilerPlay(const Napi::CallbackInfo& info) {
  namespace np = clab::nccl_profiler;
  Napi::Env env = info.Env();
  const std::string library = info[0].ToString().Utf8Value();
  const std::string symbol = info[1].ToString().Utf8Value();
  const Napi::Array calls = info[2].As<Napi::Array>();
  void* h = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw Napi::Error::New(env, std::string("dlopen: ") + dlerror());
  auto* table = static_cast<np::Table*>(dlsym(h, symbol.c_str()));
  if (!table) throw Napi::Error::New(env, "no " + symbol + " in " + library);
  // NCCL's activation mask: one per process, whose address every init gets.
  static int nccl_mask = 0;
  std::map<std::string, void*> contexts, handles;
  std::vector<std::string> strings;  // the descriptors' names outlive their calls, as NCCL's static strings do
  strings.reserve(calls.Length() * 4);
  const auto str = [&](const Napi::Object& c, const char* key) -> const char* {
    if (!c.Has(key)) return nullptr;
    strings.push_back(c.Get(key).ToString().Utf8Value());
    return strings.back().c_str();
  };
  const auto num = [](const Napi::Object& c, const char* key) { return c.Has(key) ? c.Get(key).ToNumber().Int64Value() : 0; };
  const auto big = [](const Napi::Object& c, const char* key) {
    bool lossless = true;
    return c.Has(key) ? c.Get(key).As<Napi::BigInt>().Uint64Value(&lossless) : uint64_t{0};
  };
  // The fields a Coll and a CeColl descriptor share (their members of NCCL's union start alike).
  const auto collective = [&](auto& coll, const Napi::Object& c) {
    coll.seq_number = static_cast<uint64_t>(num(c, "seq"));
    coll.func = str(c, "func");
    coll.count = static_cast<size_t>(num(c, "count"));
    coll.root = static_cast<int>(num(c, "root"));
    coll.datatype = str(c, "datatype");
  };
  Napi::Array masks = Napi::Array::New(env);
  for (uint32_t i = 0; i < calls.Length(); i++) {
    const Napi::Object c = calls.Get(i).As<Napi::Object>();
    const std::string call = c.Get("call").ToString().Utf8Value();
    if (call == "init") {
      void* ctx = nullptr;
      const int n_nodes = c.Has("nNodes") ? static_cast<int>(num(c, "nNodes")) : 1;
      table->init(&ctx, big(c, "comm"), &nccl_mask, "test", n_nodes, static_cast<int>(num(c, "nRanks")), static_cast<int>(num(c, "rank")),
                  nullptr);
      contexts[c.Get("context").ToString().Utf8Value()] = ctx;
      masks.Set(masks.Length(), nccl_mask);
    } else if (call == "pause") {
      // What the addon does around a timed loop: paused, then resumed.
      using Pause = void (*)(int);
      auto* pause = reinterpret_cast<Pause>(dlsym(h, "clab_profiler_pause"));
      if (!pause) throw Napi::Error::New(env, "no clab_profiler_pause in " + library);
      pause(c.Get("paused").ToBoolean().Value() ? 1 : 0);
      masks.Set(masks.Length(), nccl_mask);
    } else if (call == "start") {
      np::EventDescr d{};
      const std::string type = c.Get("type").ToString().Utf8Value();
      d.parent = c.Has("parent") ? handles[c.Get("parent").ToString().Utf8Value()] : nullptr;
      d.rank = static_cast<int>(num(c, "rank"));
      if (type == "coll") {
        d.type = np::kColl;
        collective(d.coll, c);
        d.coll.n_channels = static_cast<uint8_t>(num(c, "nChannels"));
        d.coll.n_warps = static_cast<uint8_t>(num(c, "nWarps"));
        d.coll.algo = str(c, "algo");
        d.coll.proto = str(c, "proto");
        d.coll.kernel_variant = str(c, "kernelVariant");  // profiler v7's; the plug-in reads it only through v7
        d.coll.is_sym_coll = c.Has("isSymColl") && c.Get("isSymColl").ToBoolean().Value();
        d.coll.user_tag = big(c, "userTag");  // v7's too
      } else if (type == "p2p") {
        d.type = np::kP2p;
        d.p2p.func = str(c, "func");
        d.p2p.count = static_cast<size_t>(num(c, "count"));
        d.p2p.datatype = str(c, "datatype");
        d.p2p.peer = static_cast<int>(num(c, "peer"));
        d.p2p.n_channels = static_cast<uint8_t>(num(c, "nChannels"));
        d.p2p.user_tag = big(c, "userTag");  // v7's
      } else if (type == "proxy-op") {
        d.type = np::kProxyOp;
        d.proxy_op.channel_id = static_cast<uint8_t>(num(c, "channel"));
        d.proxy_op.peer = static_cast<int>(num(c, "peer"));
        d.proxy_op.n_steps = static_cast<int>(num(c, "nSteps"));
        d.proxy_op.chunk_size = static_cast<int>(num(c, "chunk"));
        d.proxy_op.is_send = c.Has("isSend") && c.Get("isSend").ToBoolean().Value() ? 1 : 0;
      } else if (type == "proxy-step") {
        d.type = np::kProxyStep;
        d.proxy_step.step = static_cast<int>(num(c, "step"));
      } else if (type == "kernel-ch") {
        d.type = np::kKernelCh;
        d.kernel_ch.channel_id = static_cast<uint8_t>(num(c, "channel"));
        d.kernel_ch.p_timer = big(c, "pTimer");
      } else if (type == "ce-coll") {
        d.type = np::kCeColl;
        collective(d.ce_coll, c);
        d.ce_coll.sync_strategy = str(c, "syncStrategy");
        d.ce_coll.user_tag = big(c, "userTag");  // v7's
      } else {
        d.type = uint64_t{1} << 0;  // a group event: one the plug-in does not keep
      }
      void* handle = nullptr;
      table->start_event(contexts[c.Get("context").ToString().Utf8Value()], &handle, &d);
      handles[c.Get("handle").ToString().Utf8Value()] = handle;
    } else if (call == "state") {
      np::StateArgs a{};
      if (c.Has("transSize")) a.proxy_step.trans_size = static_cast<size_t>(num(c, "transSize"));
      else
        a.kernel_ch.p_timer = big(c, "pTimer");
      table->record_event_state(handles[c.Get("handle").ToString().Utf8Value()], static_cast<int>(num(c, "state")), &a);
    } else if (call == "stop") {
      table->stop_event(handles[c.Get("handle").ToString().Utf8Value()]);
    } else if (call == "finalize") {
      table->finalize(contexts[c.Get("context").ToString().Utf8Value()]);
    } else if (call == "sleep") {  // time passing between two calls (a proxy step's state lasting)
      std::this_thread::sleep_for(std::chrono::microseconds(num(c, "us")));
    }
  }
  return masks;
}

// tunerPlay(library, calls): NCCL's side of the tuner interface against the plug-in at `library`:
// { call: 'init', context, comm, version } through ncclTunerPlugin_v<version> (5 by default; 4 names
// no communicator), { call: 'coll', context, collType, bytes, table } (table: algorithms × protocols of
// µs, handed over as NCCL does, a contiguous array cast to float**) through the context's table,
// { call: 'chunk', context, collType, bytes, algo, proto, nChannels, chunkSize } as NCCL 2.30's
// enqueue makes it (getChunkSize, where the table has one, may change the size NCCL computed; v4 and
// v5 have none), { call: 'finalize', context }. Returns what each coll call left in the table and
// each chunk call left of the size.
Napi::Value TunerPlay(const Napi::CallbackInfo& info) {
  namespace nt = clab::nccl_tuner;
  Napi::Env env = info.Env();
  const std::string library = info[0].ToString().Utf8Value();
  const Napi::Array calls = info[1].As<Napi::Array>();
  void* h = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw Napi::Error::New(env, std::string("dlopen: ") + dlerror());
  const auto table = [&](int version) {
    const std::string symbol = "ncclTunerPlugin_v" + std::to_string(version);
    void* t = dlsym(h, symbol.c_str());
    if (!t) throw Napi::Error::New(env, "no " + symbol + " in " + library);
    return t;
  };
  // v6 extends v5, and v4's getCollInfo and finalize lie where v5's do: a v5 view reads them all.
  struct Context {
    void* ctx = nullptr;
    int version = 5;
  };
  std::map<std::string, Context> contexts;
  Napi::Array after = Napi::Array::New(env);
  for (uint32_t i = 0; i < calls.Length(); i++) {
    const Napi::Object c = calls.Get(i).As<Napi::Object>();
    const std::string call = c.Get("call").ToString().Utf8Value();
    Context& context = contexts[c.Get("context").ToString().Utf8Value()];
    if (call == "init") {
      context.version = c.Has("version") ? c.Get("version").ToNumber().Int32Value() : 5;
      if (context.version == 4) {  // NCCL 2.24 to 2.27: no communicator named
        static_cast<nt::TableV4*>(table(4))->init(2, 1, nullptr, &context.ctx);
      } else {
        bool lossless = true;
        const uint64_t comm = c.Get("comm").As<Napi::BigInt>().Uint64Value(&lossless);
        if (context.version >= 6)  // v7's table is v6's
          static_cast<nt::TableV6*>(table(context.version))->init(&context.ctx, comm, 2, 1, nullptr, nullptr, nullptr);
        else
          static_cast<nt::TableV5*>(table(context.version))->init(&context.ctx, comm, 2, 1, nullptr, nullptr, nullptr);
      }
    } else if (call == "coll") {
      const Napi::Array rows = c.Get("table").As<Napi::Array>();
      const int n_algo = static_cast<int>(rows.Length());
      const int n_proto = n_algo ? static_cast<int>(rows.Get(0u).As<Napi::Array>().Length()) : 0;
      std::vector<float> cost(static_cast<size_t>(n_algo * n_proto));
      for (int a = 0; a < n_algo; a++)
        for (int p = 0; p < n_proto; p++) cost[a * n_proto + p] = rows.Get(a).As<Napi::Array>().Get(p).ToNumber().FloatValue();
      int n_channels = 0;
      static_cast<nt::TableV5*>(table(context.version))
          ->get_coll_info(context.ctx, c.Get("collType").ToNumber().Int32Value(), c.Get("bytes").ToNumber().Int64Value(), 1,
                          reinterpret_cast<float**>(cost.data()), n_algo, n_proto, 0, &n_channels);
      Napi::Array left = Napi::Array::New(env, cost.size());
      for (size_t k = 0; k < cost.size(); k++) left.Set(static_cast<uint32_t>(k), cost[k]);
      after.Set(after.Length(), left);
    } else if (call == "chunk") {
      size_t chunk = static_cast<size_t>(c.Get("chunkSize").ToNumber().Int64Value());
      const auto* v6 = context.version >= 6 ? static_cast<nt::TableV6*>(table(context.version)) : nullptr;
      if (v6 && v6->get_chunk_size)
        v6->get_chunk_size(context.ctx, c.Get("collType").ToNumber().Int32Value(), c.Get("bytes").ToNumber().Int64Value(),
                           c.Get("algo").ToNumber().Int32Value(), c.Get("proto").ToNumber().Int32Value(),
                           c.Get("nChannels").ToNumber().Int32Value(), &chunk);
      after.Set(after.Length(), Napi::Number::New(env, static_cast<double>(chunk)));
    } else if (call == "finalize") {
      if (context.version == 4) static_cast<nt::TableV4*>(table(4))->finalize(context.ctx);
      else
        static_cast<nt::TableV5*>(table(context.version))->finalize(context.ctx);
    }
  }
  return after;
}

// A CUDA runtime of the graph calls alone that logs each call and fails the one named (graphLoopPlay).
namespace fake_cuda {
std::vector<std::string> calls;
std::string fail_at;
auto* const kStream = reinterpret_cast<gpu::cudaStream_t>(0x10);
auto* const kGraph = reinterpret_cast<gpu::cudaGraph_t>(0x20);
auto* const kExec = reinterpret_cast<gpu::cudaGraphExec_t>(0x30);
constexpr auto kFailure = static_cast<gpu::cudaError_t>(901);  // cudaErrorStreamCaptureInvalidated

gpu::cudaError_t logged(const std::string& call, const std::string& what) {
  calls.push_back(what);
  return fail_at == call ? kFailure : gpu::cudaSuccess;
}
gpu::cudaError_t begin_capture(gpu::cudaStream_t s, gpu::cudaStreamCaptureMode mode) {
  const char* name = mode == gpu::cudaStreamCaptureModeThreadLocal ? "thread-local"
                     : mode == gpu::cudaStreamCaptureModeGlobal    ? "global"
                                                                   : "relaxed";
  return logged("begin", std::string("begin capture ") + name + (s == kStream ? "" : " on another stream"));
}
gpu::cudaError_t end_capture(gpu::cudaStream_t, gpu::cudaGraph_t* graph) {
  const gpu::cudaError_t e = logged("end", "end capture");
  *graph = e == gpu::cudaSuccess ? kGraph : nullptr;
  return e;
}
gpu::cudaError_t instantiate(gpu::cudaGraphExec_t* exec, gpu::cudaGraph_t graph, unsigned long long flags) {
  const gpu::cudaError_t e = logged("instantiate", "instantiate " + std::string(graph == kGraph ? "the captured graph" : "another graph") +
                                                       ", flags " + std::to_string(flags));
  *exec = e == gpu::cudaSuccess ? kExec : nullptr;
  return e;
}
gpu::cudaError_t launch(gpu::cudaGraphExec_t exec, gpu::cudaStream_t) {
  return logged("launch", exec == kExec ? "launch" : "launch another graph");
}
auto* const kBegin = reinterpret_cast<gpu::cudaEvent_t>(0x40);
auto* const kEnd = reinterpret_cast<gpu::cudaEvent_t>(0x50);
gpu::cudaError_t record_with_flags(gpu::cudaEvent_t e, gpu::cudaStream_t, unsigned int flags) {
  const std::string which = e == kBegin ? "begin" : e == kEnd ? "end" : "another";
  return logged("record", "record the " + which + " event" +
                              (flags == gpu::kCudaEventRecordExternal ? ", external" : ", flags " + std::to_string(flags)));
}
gpu::cudaError_t exec_destroy(gpu::cudaGraphExec_t) { return logged("", "destroy the executable graph"); }
gpu::cudaError_t graph_destroy(gpu::cudaGraph_t) { return logged("", "destroy the graph"); }
gpu::cudaError_t last_error() { return logged("", "clear the last error"); }
const char* error_name(gpu::cudaError_t) { return "cudaErrorStreamCaptureInvalidated"; }
const char* error_string(gpu::cudaError_t) { return "operation failed due to a previous error during capture"; }

const gpu::CudaRuntime& runtime() {
  static gpu::CudaRuntime rt = [] {
    gpu::CudaRuntime r;
    r.cudaStreamBeginCapture = begin_capture;
    r.cudaStreamEndCapture = end_capture;
    r.cudaGraphInstantiate = instantiate;
    r.cudaGraphLaunch = launch;
    r.cudaEventRecordWithFlags = record_with_flags;
    r.cudaGraphExecDestroy = exec_destroy;
    r.cudaGraphDestroy = graph_destroy;
    r.cudaGetLastError = last_error;
    r.cudaGetErrorName = error_name;
    r.cudaGetErrorString = error_string;
    r.library = "fake";
    return r;
  }();
  return rt;
}
}  // namespace fake_cuda

// graphLoopPlay(repeat, failAt, timed): a graph-launched loop (gpu/graph_loop.h) against a runtime that
// logs its calls instead of making them: `repeat` ops (each logged "op") captured — with `timed`,
// between the loop's begin and end events recorded by the graph itself — then one launch, then the
// loop destroyed. failAt names the call that fails: 'begin', 'record', 'op' (the second op throws),
// 'end', 'instantiate', 'launch', or '' for none. Returns { calls, error?: { code, message } }.
Napi::Value GraphLoopPlay(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  fake_cuda::calls.clear();
  fake_cuda::fail_at = info[1].ToString().Utf8Value();
  const int repeat = info[0].ToNumber().Int32Value();
  const bool timed = info.Length() > 2 && info[2].ToBoolean().Value();
  Napi::Object result = Napi::Object::New(env);
  try {
    gpu::GraphLoop loop(fake_cuda::runtime(), fake_cuda::kStream, 3);
    int issued = 0;
    loop.capture(
        repeat,
        [&] {
          fake_cuda::calls.push_back("op");
          if (fake_cuda::fail_at == "op" && ++issued == 2) throw ClabError("NCCL_ERROR_INVALID_USAGE", "rank 3: ncclAllReduce failed");
        },
        timed ? fake_cuda::kBegin : nullptr, timed ? fake_cuda::kEnd : nullptr);
    loop.launch();
  } catch (const ClabError& e) {
    Napi::Object error = Napi::Object::New(env);
    error.Set("code", e.code_name());
    error.Set("message", e.what());
    result.Set("error", error);
  }
  Napi::Array calls = Napi::Array::New(env, fake_cuda::calls.size());
  for (size_t i = 0; i < fake_cuda::calls.size(); i++) calls.Set(static_cast<uint32_t>(i), fake_cuda::calls[i]);
  result.Set("calls", calls);
  return result;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("taggedCallPlay", Napi::Function::New(env, clab::test_hooks::TaggedCallPlay, "taggedCallPlay"));
  exports.Set("handoffPlay", Napi::Function::New(env, clab::test_hooks::HandoffPlay, "handoffPlay"));
  exports.Set("graphLoopPlay", Napi::Function::New(env, GraphLoopPlay, "graphLoopPlay"));
  exports.Set("tunerPlay", Napi::Function::New(env, TunerPlay, "tunerPlay"));
  exports.Set("profilerPlay", Napi::Function::New(env, ProfilerPlay, "profilerPlay"));
  exports.Set("gemmResult", Napi::Function::New(env, GemmResult, "gemmResult"));
  exports.Set("gpuGemmResult", Napi::Function::New(env, GpuGemmResult, "gpuGemmResult"));
  return exports;
}

}  // namespace

NODE_API_MODULE(clab_test_hooks, Init)
