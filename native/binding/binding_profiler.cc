// Inside NCCL: what the profiler plug-in kept (ncclProfilerRead) and where the GPU's %globaltimer
// stands against the host clock (gpuClock), as NativeAddon describes them (src/addon/native-api.ts).
#include <cstdio>
#include <string>

#include "binding/binding.h"
#include "data/gpu_clock.h"
#include "gpu/gpu_loader.h"
#include "gpu/profiler_reader.h"

namespace clab::binding {

namespace {

const char* kind_name(uint8_t k) {
  switch (static_cast<ProfileKind>(k)) {
    case ProfileKind::Comm: return "comm";
    case ProfileKind::Coll: return "coll";
    case ProfileKind::P2p: return "p2p";
    case ProfileKind::KernelCh: return "kernel-ch";
    case ProfileKind::ProxyOp: return "proxy-op";
    case ProfileKind::ProxyStep: return "proxy-step";
  }
  return "unknown";
}

const char* point_name(uint8_t p) {
  switch (static_cast<ProfilePoint>(p)) {
    case ProfilePoint::Start: return "start";
    case ProfilePoint::Stop: return "stop";
    case ProfilePoint::ChannelEnd: return "channel-end";
    case ProfilePoint::State: return "state";
  }
  return "unknown";
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

Napi::Object record_object(Napi::Env env, const ProfileRecord& r) {
  Napi::Object o = Napi::Object::New(env);
  const auto num = [&](const char* k, double v) { o.Set(k, Napi::Number::New(env, v)); };
  o.Set("kind", kind_name(r.kind));
  o.Set("point", point_name(r.point));
  num("id", static_cast<double>(r.id));
  num("parent", static_cast<double>(r.parent));
  o.Set("comm", hex(r.comm));
  num("hostNs", static_cast<double>(r.host_ns));
  // %globaltimer counts from the epoch: above 2^53, so it stays exact as a BigInt.
  o.Set("gpuNs", Napi::BigInt::New(env, r.gpu_ns));
  num("seq", static_cast<double>(r.seq));
  num("count", static_cast<double>(r.count));
  num("rank", r.rank);
  num("peer", r.peer);
  num("steps", r.steps);
  num("chunk", r.chunk);
  num("channel", r.channel);
  num("nChannels", r.n_channels);
  num("nWarps", r.n_warps);
  o.Set("isSend", Napi::Boolean::New(env, r.is_send != 0));
  num("state", r.state);
  o.Set("func", r.func);
  o.Set("datatype", r.datatype);
  o.Set("algo", r.algo);
  o.Set("proto", r.proto);
  if (static_cast<ProfileKind>(r.kind) == ProfileKind::ProxyOp && static_cast<ProfilePoint>(r.point) == ProfilePoint::Stop) {
    num("firstStepNs", static_cast<double>(r.first_step_ns));
    num("lastStepNs", static_cast<double>(r.last_step_ns));
    Napi::Array wait = Napi::Array::New(env, 4);
    for (uint32_t w = 0; w < 4; w++) wait.Set(w, Napi::Number::New(env, static_cast<double>(r.wait_ns[w])));
    o.Set("waitNs", wait);
  }
  return o;
}

const char* kFuncNames[] = {"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce", "SendRecv",
                            "Send",      "Recv",   "AlltoAll",  "Scatter",       "Gather"};

Napi::Object tuner_object(Napi::Env env, const TunerRecord& r) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("comm", hex(r.comm));
  o.Set("hostNs", Napi::Number::New(env, static_cast<double>(r.host_ns)));
  o.Set("func", r.coll_type >= 0 && r.coll_type < 11 ? kFuncNames[r.coll_type] : "unknown");
  o.Set("bytes", Napi::Number::New(env, static_cast<double>(r.n_bytes)));
  o.Set("pipeOps", Napi::Number::New(env, r.pipe_ops));
  Napi::Array table = Napi::Array::New(env, r.n_algo);
  for (int a = 0; a < r.n_algo; a++) {
    Napi::Array row = Napi::Array::New(env, r.n_proto);
    for (int p = 0; p < r.n_proto; p++) row.Set(static_cast<uint32_t>(p), Napi::Number::New(env, r.cost_us[a][p]));
    table.Set(static_cast<uint32_t>(a), row);
  }
  o.Set("costUs", table);
  return o;
}

// ncclProfilerRead({ library }): the records the plug-in at `library` kept since the last call,
// and its counters. Throws CLAB_SYSTEM_ERROR where the library cannot be read.
Napi::Value NcclProfilerRead(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  try {
    if (!info[0].IsObject()) throw_invalid("ncclProfilerRead: expected { library }");
    const std::string library = get_string(info[0].As<Napi::Object>().Get("library"), "library");
    std::string why;
    const gpu::ProfilerReader* reader = gpu::ProfilerReader::open(library, &why);
    if (!reader) throw ClabError(ErrCode::SystemError, "the profiler plug-in cannot be read: " + why);
    const std::vector<ProfileRecord> records = reader->drain();
    const std::vector<TunerRecord> tuner = reader->drain_tuner();
    const ProfileStats s = reader->stats();
    Napi::Array list = Napi::Array::New(env, records.size());
    for (size_t i = 0; i < records.size(); i++) list.Set(static_cast<uint32_t>(i), record_object(env, records[i]));
    Napi::Object o = Napi::Object::New(env);
    o.Set("records", list);
    Napi::Array calls = Napi::Array::New(env, tuner.size());
    for (size_t i = 0; i < tuner.size(); i++) calls.Set(static_cast<uint32_t>(i), tuner_object(env, tuner[i]));
    o.Set("tuner", calls);
    o.Set("tunerInterface", Napi::Number::New(env, s.tuner_interface));
    o.Set("recorded", Napi::Number::New(env, static_cast<double>(s.recorded)));
    o.Set("dropped", Napi::Number::New(env, static_cast<double>(s.dropped)));
    o.Set("inits", Napi::Number::New(env, static_cast<double>(s.inits)));
    o.Set("mask", Napi::Number::New(env, s.mask));
    o.Set("interface", Napi::Number::New(env, s.interface));
    return o;
  } catch (const ClabError& e) {
    throw make_error(env, e.code_name(), e.what(), -1);
  }
}

// gpuClock({ device, rank }): %globaltimer against CLOCK_MONOTONIC on `device` (gpu_clock.h).
Napi::Value GpuClock(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int rank = -1;
  try {
    if (!info[0].IsObject()) throw_invalid("gpuClock: expected { device, rank }");
    const Napi::Object a = info[0].As<Napi::Object>();
    const int device = static_cast<int>(get_int(a.Get("device"), "device", 0, 1023));
    rank = static_cast<int>(get_int(a.Get("rank"), "rank", 0, 1 << 20));
    std::string why;
    const gpu::CudaRuntime* rt = gpu::load_cudart(&why);
    if (!rt) throw ClabError(ErrCode::SystemError, why);
    const GpuClockSample s = calibrate_gpu_clock(*rt, device, rank, 16);
    Napi::Object o = Napi::Object::New(env);
    o.Set("gpuNs", Napi::BigInt::New(env, s.gpu_ns));
    o.Set("hostNs", Napi::Number::New(env, static_cast<double>(s.host_ns)));
    o.Set("errorNs", Napi::Number::New(env, static_cast<double>(s.error_ns)));
    return o;
  } catch (const ClabError& e) {
    throw make_error(env, e.code_name(), e.what(), rank);
  }
}

}  // namespace

void register_profiler(Napi::Env env, Napi::Object exports) {
  exports.Set("ncclProfilerRead", Napi::Function::New(env, NcclProfilerRead, "ncclProfilerRead"));
  exports.Set("gpuClock", Napi::Function::New(env, GpuClock, "gpuClock"));
}

}  // namespace clab::binding
