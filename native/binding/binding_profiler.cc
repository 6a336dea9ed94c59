// Inside NCCL: what the profiler plug-in kept (ncclProfilerReadPacked) and where the GPU's %globaltimer
// stands against the host clock (gpuClock), as NativeAddon describes them (src/addon/native-api.ts).
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>

#include "binding/binding.h"
#include "data/gpu_clock.h"
#include "gpu/gpu_loader.h"
#include "gpu/profiler_reader.h"

namespace clab::binding {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Where each field of a ProfileRecord lies, for the decoder on the JavaScript side
// (src/addon/profile-records.ts), with the names of the kinds and points by their numbers: the
// records go over as one copy of their bytes, not one object of some 25 properties each (a step of
// 200 calls on 24 channels keeps some 10 000 records).
Napi::Object record_layout(Napi::Env env) {
  Napi::Object l = Napi::Object::New(env);
  const auto at = [&](const char* k, size_t offset) { l.Set(k, Napi::Number::New(env, static_cast<double>(offset))); };
  at("size", sizeof(ProfileRecord));
  at("id", offsetof(ProfileRecord, id));
  at("parent", offsetof(ProfileRecord, parent));
  at("comm", offsetof(ProfileRecord, comm));
  at("hostNs", offsetof(ProfileRecord, host_ns));
  at("gpuNs", offsetof(ProfileRecord, gpu_ns));
  at("seq", offsetof(ProfileRecord, seq));
  at("count", offsetof(ProfileRecord, count));
  at("rank", offsetof(ProfileRecord, rank));
  at("peer", offsetof(ProfileRecord, peer));
  at("steps", offsetof(ProfileRecord, steps));
  at("chunk", offsetof(ProfileRecord, chunk));
  at("kind", offsetof(ProfileRecord, kind));
  at("point", offsetof(ProfileRecord, point));
  at("channel", offsetof(ProfileRecord, channel));
  at("nChannels", offsetof(ProfileRecord, n_channels));
  at("nWarps", offsetof(ProfileRecord, n_warps));
  at("isSend", offsetof(ProfileRecord, is_send));
  at("state", offsetof(ProfileRecord, state));
  at("func", offsetof(ProfileRecord, func));
  at("datatype", offsetof(ProfileRecord, datatype));
  at("algo", offsetof(ProfileRecord, algo));
  at("proto", offsetof(ProfileRecord, proto));
  at("text", sizeof(ProfileRecord::func));
  at("kernel", offsetof(ProfileRecord, kernel));
  at("kernelText", sizeof(ProfileRecord::kernel));
  at("symmetric", offsetof(ProfileRecord, symmetric));
  at("userTag", offsetof(ProfileRecord, user_tag));
  at("firstStepNs", offsetof(ProfileRecord, first_step_ns));
  at("lastStepNs", offsetof(ProfileRecord, last_step_ns));
  at("waitNs", offsetof(ProfileRecord, wait_ns));
  const uint16_t probe = 1;
  l.Set("littleEndian", Napi::Boolean::New(env, *reinterpret_cast<const uint8_t*>(&probe) == 1));
  // By number (ProfileKind, ProfilePoint); "" where no kind or point has the number.
  Napi::Array kinds = Napi::Array::New(env, 8);
  const char* kind_names[] = {"", "comm", "coll", "p2p", "kernel-ch", "proxy-op", "proxy-step", "ce-coll"};
  static_assert(static_cast<int>(ProfileKind::CeColl) == 7, "kind_names follows ProfileKind");
  for (uint32_t k = 0; k < 8; k++) kinds.Set(k, kind_names[k]);
  l.Set("kinds", kinds);
  Napi::Array points = Napi::Array::New(env, 4);
  const char* point_names[] = {"start", "stop", "channel-end", "state"};
  static_assert(static_cast<int>(ProfilePoint::State) == 3, "point_names follows ProfilePoint");
  for (uint32_t p = 0; p < 4; p++) points.Set(p, point_names[p]);
  l.Set("points", points);
  l.Set("proxyOp", Napi::Number::New(env, static_cast<int>(ProfileKind::ProxyOp)));
  l.Set("stop", Napi::Number::New(env, static_cast<int>(ProfilePoint::Stop)));
  return l;
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

// ncclProfilerReadPacked({ library }): the records the plug-in at `library` kept since the last
// call, as their bytes (`packed`, `count` records of `layout.size` bytes), the tuner's records, and
// the counters. Throws CLAB_SYSTEM_ERROR where the library cannot be read. The addon's loader
// (src/addon/profile-records.ts) turns it into ncclProfilerRead's records.
Napi::Value NcclProfilerReadPacked(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  try {
    if (!info[0].IsObject()) throw_invalid("ncclProfilerReadPacked: expected { library }");
    const std::string library = get_string(info[0].As<Napi::Object>().Get("library"), "library");
    std::string why;
    const gpu::ProfilerReader* reader = gpu::ProfilerReader::open(library, &why);
    if (!reader) throw ClabError(ErrCode::SystemError, "the profiler plug-in cannot be read: " + why);
    const std::vector<ProfileRecord> records = reader->drain();
    const std::vector<TunerRecord> tuner = reader->drain_tuner();
    const ProfileStats s = reader->stats();
    const size_t bytes = records.size() * sizeof(ProfileRecord);
    Napi::ArrayBuffer packed = Napi::ArrayBuffer::New(env, bytes);
    if (bytes) std::memcpy(packed.Data(), records.data(), bytes);
    Napi::Object o = Napi::Object::New(env);
    o.Set("packed", packed);
    o.Set("count", Napi::Number::New(env, static_cast<double>(records.size())));
    o.Set("layout", record_layout(env));
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
  exports.Set("ncclProfilerReadPacked", Napi::Function::New(env, NcclProfilerReadPacked, "ncclProfilerReadPacked"));
  exports.Set("gpuClock", Napi::Function::New(env, GpuClock, "gpuClock"));
}

}  // namespace clab::binding
