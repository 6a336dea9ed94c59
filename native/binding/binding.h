// The binding's shared pieces (binding.cc: module functions; binding_comm.cc: the communicator
// object; binding_values.cc: JS values into ops and times back). These are the only files that
// include napi.h.
#pragma once

#include <napi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/comm.h"
#include "common/errors.h"
#include "common/op.h"
#include "gpu/gpu_gemm.h"

namespace clab::binding {

Napi::Error make_error(Napi::Env env, const std::string& code, const std::string& message, int rank);
/** An integer in [min, max] or CLAB_INVALID_ARGUMENT naming `field`. */
int64_t get_int(const Napi::Value& v, const std::string& field, int64_t min, int64_t max);
std::string get_string(const Napi::Value& v, const std::string& field);
/** A value as a message shows it: 'text', 3, undefined, an object, … */
std::string show(const Napi::Value& v);

/** A promise rejected with the ClabError's code and `rank` (-1: none). */
Napi::Value rejected(Napi::Env env, const ClabError& e, int rank);
/** A call's one options object, or CLAB_INVALID_ARGUMENT naming `call`. */
Napi::Object get_options(const Napi::CallbackInfo& info, const char* call);
enum class Backend { Cpu, Nccl };
/** options.backend: 'cpu' or 'nccl'. */
Backend get_backend(const Napi::Object& o);

/** References that keep JS buffers alive while an op uses them. */
using Refs = std::vector<Napi::ObjectReference>;
/**
 * The op at `path` (e.g. "op", "op.ops[2]"): its kind, dtype, counts and buffers (each referenced
 * in `refs` until the op settles), its data program; groups nest `depth` deep at most.
 * Throws CLAB_INVALID_ARGUMENT naming the field.
 */
Op parse_op(Napi::Env env, const Napi::Value& v, const std::string& path, Refs& refs, int depth);
/** warmGemm's `gemms`: gemm ops (dtype, m, n, k), at most 8; none where undefined. */
std::vector<GpuGemm::Shape> get_gemm_shapes(Napi::Env env, const Napi::Value& v);
/** prepareDevice and warmGemm (binding_device.cc) on the module's exports. */
void register_device_tasks(Napi::Env env, Napi::Object exports);
/** ncclProfilerReadPacked and gpuClock (binding_profiler.cc) on the module's exports. */
void register_profiler(Napi::Env env, Napi::Object exports);
/** An op's times as NativeTimes (src/addon/native-api.ts). */
Napi::Object times_object(Napi::Env e, const Times& m);

/** What a factory hands to the communicator class's constructor (through a Napi::External). */
struct NewComm {
  std::shared_ptr<Comm> comm;
  int device = -1;              // nccl: the GPU
  std::string bus_id;           // nccl: its PCI bus id
  int compute_capability = -1;  // nccl: major × 10 + minor (9.0 → 90), -1 unknown
  int nccl_version = -1;        // nccl: ncclGetVersion's code (2.28.3 → 22803)
};

/**
 * Runs `work` on a libuv worker thread and settles a promise on the JS thread with
 * `to_js(result)`, or rejects it with the ClabError's code and `rank` (-1: none).
 */
template <class Result>
class PromiseWorker : public Napi::AsyncWorker {
 public:
  using Work = std::function<Result()>;
  using ToJs = std::function<Napi::Value(Napi::Env, Result&)>;

  static Napi::Promise queue(Napi::Env env, const char* name, int rank, Work work, ToJs to_js) {
    auto* worker = new PromiseWorker(env, name, rank, std::move(work), std::move(to_js));  // deletes itself once settled
    Napi::Promise promise = worker->deferred_.Promise();
    worker->Queue();
    return promise;
  }

 protected:
  void Execute() override {
    try {
      result_ = work_();
    } catch (const ClabError& e) {
      code_ = e.code_name();
      SetError(e.what());
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }
  void OnOK() override { deferred_.Resolve(to_js_(Env(), result_)); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(make_error(Env(), code_, e.Message(), rank_).Value()); }

 private:
  PromiseWorker(Napi::Env env, const char* name, int rank, Work work, ToJs to_js)
      : Napi::AsyncWorker(env, name), deferred_(env), rank_(rank), work_(std::move(work)), to_js_(std::move(to_js)) {}

  Napi::Promise::Deferred deferred_;
  int rank_;
  Work work_;
  ToJs to_js_;
  Result result_{};
  std::string code_ = err_code_name(ErrCode::SystemError);
};

/** What a PromiseWorker returns when the promise carries no value (it resolves to undefined). */
struct Nothing {};

/** The JS class behind NativeComm (enqueue, prestage, drain, abort, destroy); construct it with an External<NewComm>. */
Napi::Function define_comm_class(Napi::Env env);

}  // namespace clab::binding
