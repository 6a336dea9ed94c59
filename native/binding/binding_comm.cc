// The communicator object of src/addon/native-api.ts (NativeComm): takes ops parsed from JS values
// (binding_values.cc), validates them, queues them on stream threads and settles each promise on
// the JS thread through a thread-safe function. The TSFN is referenced only while operations are
// pending, so an idle communicator never keeps the process alive. One class serves every backend.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "binding/binding.h"
#include "common/errors.h"
#include "common/op.h"
#include "common/stream.h"
#include "nccl/nccl_comm.h"

namespace clab::binding {

namespace {

// ---- the communicator object --------------------------------------------------------------

class CommWrap;
struct Job;

/** Settles a job's promise on the JS thread; env is null while the environment is torn down. */
void settle(Napi::Env env, Napi::Function, std::nullptr_t*, Job* job);
using SettleTsfn = Napi::TypedThreadSafeFunction<std::nullptr_t, Job, settle>;

/** One enqueue: lives from the call until its promise settles on the JS thread. */
struct Job {
  enum class Kind { Execute, Prestage, Drain };
  explicit Job(napi_env env) : deferred(env), refs(std::make_unique<Refs>()) {}
  Kind kind = Kind::Execute;
  Napi::Promise::Deferred deferred;
  std::unique_ptr<Refs> refs;  // buffers and the communicator object, alive until the op finishes
  CommWrap* wrap = nullptr;
  Op op;
  int repeat = 1;
  uint64_t ticket = 0;
  uint64_t tag = 0;           // options.tag: NCCL's profiler tag of the op's calls (NcclComm::CallTag)
  bool gemm_follows = false;  // options.gemmFollows: a GEMM on another stream is enqueued next (Comm::admit)
  bool ok = false;
  std::string code = err_code_name(ErrCode::SystemError);
  std::string message;
  Times times;
  std::vector<std::unique_ptr<Refs>> held;  // drain: the prestaged ops' buffers, let go once it settles

  /** At teardown the engine is going away: its references must not be deleted through it. */
  void abandon_references() {
    refs.release();
    for (auto& r : held) r.release();
  }
};

/**
 * Communicators being closed on worker threads (destroyAsync). A process that exits meanwhile
 * (a failed rank) first waits for them, up to kWaitMs, so that the runtime's teardown does not
 * run under a close still inside NCCL or CUDA.
 */
class BackgroundCloses {
 public:
  static BackgroundCloses& get() {
    static BackgroundCloses closes;
    return closes;
  }
  void begin() {
    std::lock_guard<std::mutex> lock(mu_);
    running_++;
  }
  void end() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      running_--;
    }
    cv_.notify_all();
  }
  static void WaitAtExit(void*) {
    BackgroundCloses& c = get();
    std::unique_lock<std::mutex> lock(c.mu_);
    c.cv_.wait_for(lock, std::chrono::milliseconds(kWaitMs), [&c] { return c.running_ == 0; });
  }

 private:
  static constexpr int kWaitMs = 5000;  // a close takes far less (NcclComm::close)
  std::mutex mu_;
  std::condition_variable cv_;
  int running_ = 0;
};

class CommWrap : public Napi::ObjectWrap<CommWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Comm",
                       {InstanceMethod<&CommWrap::Enqueue>("enqueue"), InstanceMethod<&CommWrap::Prestage>("prestage"),
                        InstanceMethod<&CommWrap::Drain>("drain"), InstanceMethod<&CommWrap::Abort>("abort"),
                        InstanceMethod<&CommWrap::Destroy>("destroy"), InstanceMethod<&CommWrap::DestroyAsync>("destroyAsync")});
  }

  CommWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<CommWrap>(info), env_(info.Env()) {
    Napi::Env env = info.Env();
    if (!info[0].IsExternal()) throw make_error(env, err_code_name(ErrCode::InvalidArgument), "use commInit", -1);
    NewComm* made = info[0].As<Napi::External<NewComm>>().Data();
    comm_ = made->comm;
    rank_ = comm_->rank();
    Napi::Object self = info.This().As<Napi::Object>();
    self.DefineProperties({Napi::PropertyDescriptor::Value("rank", Napi::Number::New(env, rank_), napi_enumerable),
                           Napi::PropertyDescriptor::Value("world", Napi::Number::New(env, comm_->world()), napi_enumerable)});
    if (made->device >= 0)
      self.DefineProperties({Napi::PropertyDescriptor::Value("device", Napi::Number::New(env, made->device), napi_enumerable),
                             Napi::PropertyDescriptor::Value("busId", Napi::String::New(env, made->bus_id), napi_enumerable)});
    if (made->compute_capability >= 0)
      self.DefineProperty(
          Napi::PropertyDescriptor::Value("computeCapability", Napi::Number::New(env, made->compute_capability), napi_enumerable));
    if (made->nccl_version >= 0)
      self.DefineProperty(Napi::PropertyDescriptor::Value("ncclVersion", Napi::Number::New(env, made->nccl_version), napi_enumerable));
    // Whether ops may carry data (op.data) that this backend makes and checks itself, and why not.
    const std::string why_not = comm_->data_unavailable();
    self.DefineProperty(Napi::PropertyDescriptor::Value("makesData", Napi::Boolean::New(env, why_not.empty()), napi_enumerable));
    self.DefineProperty(
        Napi::PropertyDescriptor::Value("launchesGraphs", Napi::Boolean::New(env, comm_->launches_graphs()), napi_enumerable));
    if (!why_not.empty())
      self.DefineProperty(Napi::PropertyDescriptor::Value("makesDataWhyNot", Napi::String::New(env, why_not), napi_enumerable));
    pool_ = std::make_unique<StreamPool>();
    inflight_ = std::make_shared<std::atomic<int>>(0);
    try {
      tsfn_ = SettleTsfn::New(env, "clab-comm", 0, 1);
    } catch (const Napi::Error&) {
      comm_->close();
      throw make_error(env, err_code_name(ErrCode::SystemError), "cannot create the thread-safe function of a communicator", rank_);
    }
    tsfn_.Unref(env);
    napi_add_env_cleanup_hook(env, &CommWrap::OnEnvCleanup, this);
  }

  ~CommWrap() override { Shutdown(false); }

  /** JS thread: one promise fewer pending; the TSFN stops holding the process open at zero. */
  void settled(Napi::Env env) {
    if (--pending_ == 0 && !released_) tsfn_.Unref(env);
  }
  int rank() const { return rank_; }

 private:
  Napi::Value Enqueue(const Napi::CallbackInfo& info) { return Submit(info, Job::Kind::Execute); }
  Napi::Value Prestage(const Napi::CallbackInfo& info) { return Submit(info, Job::Kind::Prestage); }
  Napi::Value Drain(const Napi::CallbackInfo& info) { return Submit(info, Job::Kind::Drain); }

  // enqueue(stream, op, repeat?, { loop?, eventsInLoop?, launch?, tag?, output?, gemmFollows? }?) | prestage(stream, op) | drain(stream)
  Napi::Value Submit(const Napi::CallbackInfo& info, Job::Kind kind) {
    Napi::Env env = info.Env();
    auto job = std::make_unique<Job>(env);
    job->kind = kind;
    const Napi::Promise promise = job->deferred.Promise();
    try {
      if (destroyed_) throw ClabError(ErrCode::Aborted, "enqueue after destroy(): the communicator is gone");
      const int stream = static_cast<int>(get_int(info[0], "stream", 0, kMaxStreams - 1));
      if (kind != Job::Kind::Drain) {
        job->repeat = info[2].IsUndefined() ? 1 : static_cast<int>(get_int(info[2], "repeat", 1, 10000000));
        job->op = parse_op(env, info[1], "op", *job->refs, 0);
        validate_op(job->op, comm_->rank(), comm_->world());
      }
      if (kind == Job::Kind::Execute && info.Length() > 3 && !info[3].IsUndefined()) {
        if (!info[3].IsObject() || info[3].IsArray()) throw_invalid("options must be an object (got " + show(info[3]) + ")");
        const Napi::Value loop = info[3].As<Napi::Object>().Get("loop");
        if (!loop.IsUndefined() && !loop.IsBoolean()) throw_invalid("options.loop must be a boolean (got " + show(loop) + ")");
        job->times.loop_wanted = loop.IsBoolean() && loop.As<Napi::Boolean>().Value();
        const Napi::Value inside = info[3].As<Napi::Object>().Get("eventsInLoop");
        if (!inside.IsUndefined() && !inside.IsBoolean())
          throw_invalid("options.eventsInLoop must be a boolean (got " + show(inside) + ")");
        job->times.events_in_loop = inside.IsBoolean() && inside.As<Napi::Boolean>().Value();
        const Napi::Value launch = info[3].As<Napi::Object>().Get("launch");
        const std::string how = launch.IsString() ? launch.As<Napi::String>().Utf8Value() : "";
        if (!launch.IsUndefined() && how != "host" && how != "graph")
          throw_invalid("options.launch must be 'host' or 'graph' (got " + show(launch) + ")");
        if (how == "graph") {
          if (!comm_->launches_graphs())
            throw ClabError("CLAB_UNSUPPORTED",
                            "graph launch captures the loop in a CUDA graph: the nccl backend has them, this one does not");
          // A copy's target is learnt as the ranks line up, after the loop's graph is captured.
          if (op_has_copy_engine(job->op)) throw_invalid("options.launch 'graph' cannot take a copy-engine transfer");
          job->times.loop_wanted = job->times.graph_wanted = true;  // the graph is that loop's
        }
        const Napi::Value output = info[3].As<Napi::Object>().Get("output");
        if (!output.IsUndefined() && !output.IsBoolean()) throw_invalid("options.output must be a boolean (got " + show(output) + ")");
        job->times.output_wanted = !output.IsBoolean() || output.As<Napi::Boolean>().Value();
        // A whole number below 2^53 (exact in JS) has the most significant bit of NCCL's 64 clear,
        // as the lab's tags must (NCCL keeps the others).
        const Napi::Value tag = info[3].As<Napi::Object>().Get("tag");
        if (!tag.IsUndefined()) job->tag = static_cast<uint64_t>(get_int(tag, "options.tag", 0, (int64_t{1} << 53) - 1));
        const Napi::Value follows = info[3].As<Napi::Object>().Get("gemmFollows");
        if (!follows.IsUndefined() && !follows.IsBoolean())
          throw_invalid("options.gemmFollows must be a boolean (got " + show(follows) + ")");
        job->gemm_follows = follows.IsBoolean() && follows.As<Napi::Boolean>().Value();
      }
      if (kind == Job::Kind::Execute) job->ticket = comm_->admit(job->op, stream, job->gemm_follows);
      // The device copies of a prestaged op point at its host buffers until drain(): they must outlive it.
      if (kind == Job::Kind::Prestage) held_.push_back(std::exchange(job->refs, std::make_unique<Refs>()));
      if (kind == Job::Kind::Drain) job->held.swap(held_);
      job->refs->emplace_back(Napi::Persistent(info.This().As<Napi::Object>()));
      job->wrap = this;
      if (pending_++ == 0) tsfn_.Ref(env);
      inflight_->fetch_add(1);
      // From here the job belongs to its stream task, which hands it to settle() through the TSFN.
      Job* queued = job.release();
      auto comm = comm_;
      auto inflight = inflight_;
      SettleTsfn tsfn = tsfn_;
      const bool accepted = pool_->submit(stream, [comm, queued, inflight, tsfn](StreamContext& ctx) {
        try {
          const NcclComm::CallTag tagged(queued->tag);
          switch (queued->kind) {
            case Job::Kind::Execute: comm->execute(queued->op, queued->repeat, queued->ticket, ctx, queued->times); break;
            case Job::Kind::Prestage: comm->prestage(queued->op, ctx); break;
            case Job::Kind::Drain: comm->drain(ctx); break;
          }
          queued->ok = true;
        } catch (const ClabError& e) {
          queued->code = e.code_name();
          queued->message = e.what();
        } catch (const std::exception& e) {
          queued->message = e.what();
        }
        inflight->fetch_sub(1);
        tsfn.BlockingCall(queued);
      });
      if (!accepted) {  // cannot happen while !destroyed_; settle it anyway rather than leak a promise
        queued->message = "the stream threads are gone";
        inflight_->fetch_sub(1);
        tsfn_.BlockingCall(queued);
      }
    } catch (const ClabError& e) {
      job->deferred.Reject(make_error(env, e.code_name(), e.what(), rank_).Value());
    }
    return promise;
  }

  Napi::Value Abort(const Napi::CallbackInfo& info) {
    std::string reason;
    if (info.Length() > 0 && !info[0].IsUndefined() && !info[0].IsNull()) reason = info[0].ToString().Utf8Value();
    if (!destroyed_) comm_->abort(reason);
    return info.Env().Undefined();
  }

  Napi::Value Destroy(const Napi::CallbackInfo& info) {
    Shutdown(false);
    return info.Env().Undefined();
  }

  // As destroy(), but the communicator itself is closed on a worker thread, and the promise
  // settles once it is gone: a rank leaving one pair's communicator need not wait for that slow
  // close (NcclComm::close) before joining the next. With operations still running it is destroy().
  Napi::Value DestroyAsync(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (destroyed_ || inflight_->load() > 0) {
      Shutdown(false);
      auto done = Napi::Promise::Deferred::New(env);
      done.Resolve(env.Undefined());
      return done.Promise();
    }
    std::shared_ptr<Comm> comm = std::move(comm_);
    Release(false);
    BackgroundCloses::get().begin();
    return PromiseWorker<Nothing>::queue(
        env, "clab-destroy", rank_,
        [comm]() mutable {
          struct End {
            ~End() { BackgroundCloses::get().end(); }
          } end;
          comm->close();
          comm.reset();  // the last reference: the backend's own teardown runs here too
          return Nothing{};
        },
        [](Napi::Env e, Nothing&) { return e.Undefined(); });
  }

  static void OnEnvCleanup(void* arg) { static_cast<CommWrap*>(arg)->Shutdown(true); }

  // Aborts what still runs (so joining cannot hang), joins the stream threads, closes the communicator.
  void Shutdown(bool from_cleanup_hook) {
    if (destroyed_) return;
    destroyed_ = true;
    const int running = inflight_->load();
    if (running > 0)
      comm_->abort((from_cleanup_hook ? "the process exited with " : "destroy() was called with ") + std::to_string(running) +
                   " operation(s) still running on rank " + std::to_string(rank_));
    pool_->shutdown();
    comm_->close();
    Release(from_cleanup_hook);
  }

  // Everything but the communicator: the stream threads (idle, or joined already), the TSFN, the
  // references held for prestaged ops, the cleanup hook.
  void Release(bool from_cleanup_hook) {
    destroyed_ = true;
    pool_->shutdown();
    tsfn_.Release();
    released_ = true;
    if (from_cleanup_hook)
      for (auto& r : held_) r.release();  // the engine is going away: leave its references alone
    held_.clear();
    if (!from_cleanup_hook) napi_remove_env_cleanup_hook(env_, &CommWrap::OnEnvCleanup, this);
  }

  napi_env env_;
  std::shared_ptr<Comm> comm_;
  std::unique_ptr<StreamPool> pool_;
  std::shared_ptr<std::atomic<int>> inflight_;
  SettleTsfn tsfn_;
  int rank_ = -1;
  int pending_ = 0;  // JS thread only: promises not yet settled
  bool destroyed_ = false;
  bool released_ = false;
  std::vector<std::unique_ptr<Refs>> held_;  // JS thread: buffers of prestaged ops, until the next drain settles
};

void settle(Napi::Env env, Napi::Function, std::nullptr_t*, Job* raw) {
  std::unique_ptr<Job> job(raw);
  if (static_cast<napi_env>(env) == nullptr) {
    job->abandon_references();
    return;
  }
  try {
    Napi::HandleScope scope(env);
    if (job->ok) job->deferred.Resolve(times_object(env, job->times));
    else
      job->deferred.Reject(make_error(env, job->code, job->message, job->wrap->rank()).Value());
    job->wrap->settled(env);
  } catch (...) {
  }
}

}  // namespace

Napi::Function define_comm_class(Napi::Env env) {
  napi_add_env_cleanup_hook(env, &BackgroundCloses::WaitAtExit, nullptr);
  return CommWrap::Define(env);
}

}  // namespace clab::binding
