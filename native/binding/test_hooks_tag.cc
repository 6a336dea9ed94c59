// The test-only module's play of a step's tag on NCCL's nccl*Config entry points (native/nccl/nccl_tag.h)
// against a library of fakes: which entry point NcclComm::issue would call, and the config it hands over.
#include <napi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "binding/test_hooks.h"
#include "common/op.h"
#include "nccl/nccl_tag.h"

namespace clab::test_hooks {

namespace {

// An NCCL of the nccl*Config entry points alone that logs each call and the config it was given (taggedCallPlay).
namespace fake_nccl {
std::vector<std::string> calls;
gpu::ncclCollConfig_t seen{};

gpu::ncclResult_t logged(const char* name, const gpu::ncclCollConfig_t* c, int root) {
  calls.push_back(std::string(name) + (root >= 0 ? " root " + std::to_string(root) : ""));
  if (c) seen = *c;
  return gpu::ncclSuccess;
}
using T = gpu::ncclDataType_t;
using Op = gpu::ncclRedOp_t;
using C = gpu::ncclComm_t;
using S = gpu::cudaStream_t;
using Cfg = const gpu::ncclCollConfig_t*;
gpu::ncclResult_t all_reduce(const void*, void*, size_t, T, Op, C, S, Cfg c) { return logged("AllReduce", c, -1); }
gpu::ncclResult_t broadcast(const void*, void*, size_t, T, int root, C, S, Cfg c) { return logged("Broadcast", c, root); }
gpu::ncclResult_t reduce(const void*, void*, size_t, T, Op, int root, C, S, Cfg c) { return logged("Reduce", c, root); }
gpu::ncclResult_t all_gather(const void*, void*, size_t, T, C, S, Cfg c) { return logged("AllGather", c, -1); }
gpu::ncclResult_t reduce_scatter(const void*, void*, size_t, T, Op, C, S, Cfg c) { return logged("ReduceScatter", c, -1); }
gpu::ncclResult_t all_to_all(const void*, void*, size_t, T, C, S, Cfg c) { return logged("AlltoAll", c, -1); }
gpu::ncclResult_t gather(const void*, void*, size_t, T, int root, C, S, Cfg c) { return logged("Gather", c, root); }
gpu::ncclResult_t scatter(const void*, void*, size_t, T, int root, C, S, Cfg c) { return logged("Scatter", c, root); }

/** With the entry points (NCCL 2.31 and later), or without (before). */
gpu::NcclLibrary library(bool since_2_31) {
  gpu::NcclLibrary n;
  n.library = "fake";
  if (!since_2_31) return n;
  n.ncclAllReduceConfig = all_reduce;
  n.ncclBroadcastConfig = broadcast;
  n.ncclReduceConfig = reduce;
  n.ncclAllGatherConfig = all_gather;
  n.ncclReduceScatterConfig = reduce_scatter;
  n.ncclAlltoAllConfig = all_to_all;
  n.ncclGatherConfig = gather;
  n.ncclScatterConfig = scatter;
  return n;
}
}  // namespace fake_nccl

}  // namespace

// taggedCallPlay(op, tag, since231): what NcclComm::issue makes of a call of native op `op` (all_reduce,
// send, …; root 1) with NCCL's profiler tag `tag` (a BigInt) against an NCCL with the nccl*Config
// entry points (since231) or without: { entry: the entry point called, or null where the plain call
// is made instead; calls: what the library saw; config: the fields of the config it was given }.
Napi::Value TaggedCallPlay(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  OpKind kind;
  if (!parse_op_kind(info[0].ToString().Utf8Value(), &kind)) throw Napi::Error::New(env, "unknown op");
  bool lossless = true;
  const uint64_t tag = info[1].As<Napi::BigInt>().Uint64Value(&lossless);
  const gpu::NcclLibrary n = fake_nccl::library(info[2].ToBoolean().Value());
  fake_nccl::calls.clear();
  fake_nccl::seen = {};
  int buffer = 0;
  const NcclCall call{kind, &buffer, &buffer, 1, gpu::ncclFloat32, gpu::ncclSum, 1, nullptr, nullptr};
  gpu::ncclResult_t r = gpu::ncclInternalError;
  const char* entry = call_with_config(n, call, coll_config(tag), &r);
  Napi::Object result = Napi::Object::New(env);
  result.Set("entry", entry ? Napi::Value(Napi::String::New(env, entry)) : env.Null());
  Napi::Array calls = Napi::Array::New(env, fake_nccl::calls.size());
  for (size_t i = 0; i < fake_nccl::calls.size(); i++) calls.Set(static_cast<uint32_t>(i), fake_nccl::calls[i]);
  result.Set("calls", calls);
  if (entry) {
    const gpu::ncclCollConfig_t& c = fake_nccl::seen;
    Napi::Object o = Napi::Object::New(env);
    o.Set("size", Napi::Number::New(env, static_cast<double>(c.size)));
    o.Set("magic", Napi::Number::New(env, c.magic));
    o.Set("version", Napi::Number::New(env, c.version));
    o.Set("ext", Napi::Boolean::New(env, c.ext != nullptr));
    o.Set("minCTAs", c.minCTAs);
    o.Set("maxCTAs", c.maxCTAs);
    o.Set("nvlsCTAs", c.nvlsCTAs);
    o.Set("cgaClusterSize", c.cgaClusterSize);
    o.Set("algSelection", Napi::Boolean::New(env, c.algSelection != nullptr));
    o.Set("forceAlgSelection", c.forceAlgSelection);
    o.Set("CTAPolicy", c.CTAPolicy);
    o.Set("userProfilerTag", Napi::BigInt::New(env, c.userProfilerTag));
    o.Set("tagOffset", Napi::Number::New(env, static_cast<double>(offsetof(gpu::ncclCollConfig_t, userProfilerTag))));
    result.Set("config", o);
    result.Set("ok", Napi::Boolean::New(env, r == gpu::ncclSuccess));
  }
  return result;
}

}  // namespace clab::test_hooks
