// The module's tasks on a rank's GPU before its communicator exists: prepareDevice (its CUDA
// context) and warmGemm (cuBLAS and the kernels of its multiplies), each on a libuv worker thread
// behind a promise, so that they run while the rank waits for its communicator's id and joins.
#include <functional>
#include <vector>

#include "binding/binding.h"
#include "cpu/shm_segment.h"
#include "gpu/gpu_gemm.h"
#include "nccl/nccl_comm.h"

namespace clab::binding {

namespace {

/**
 * A task of the rank's GPU on the thread pool (nccl; nothing to do on cpu): prepareDevice,
 * warmGemm. `make` reads the task's own options (throwing ClabError) and returns it.
 */
using GpuTask = std::function<void(int device, int rank)>;
Napi::Value DeviceTask(const Napi::CallbackInfo& info, const char* name, const char* thread,
                       const std::function<GpuTask(const Napi::Object&)>& make) {
  Napi::Env env = info.Env();
  try {
    const Napi::Object o = get_options(info, name);
    const Backend backend = get_backend(o);
    const int rank = static_cast<int>(get_int(o.Get("rank"), "rank", 0, kMaxWorld - 1));
    const int device = backend == Backend::Nccl ? static_cast<int>(get_int(o.Get("device"), "device", 0, 1023)) : -1;
    const GpuTask task = make(o);
    return PromiseWorker<Nothing>::queue(
        env, thread, rank,
        [backend, device, rank, task] {
          if (backend == Backend::Nccl) task(device, rank);
          return Nothing{};
        },
        [](Napi::Env e, Nothing&) { return e.Undefined(); });
  } catch (const ClabError& e) {
    return rejected(env, e, -1);
  }
}

// prepareDevice({ backend, device, rank }): nccl makes the GPU's CUDA context (NcclComm::prepare_device).
Napi::Value PrepareDevice(const Napi::CallbackInfo& info) {
  return DeviceTask(info, "prepareDevice", "clab-prepare-device", [](const Napi::Object&) { return NcclComm::prepare_device; });
}

// warmGemm({ backend, device, rank, gemms? }): nccl loads cuBLAS, sets it up on the GPU and runs each
// of `gemms` (gemm ops: dtype, m, n, k) once, loading its kernels (NcclComm::warm_gemm).
Napi::Value WarmGemm(const Napi::CallbackInfo& info) {
  return DeviceTask(info, "warmGemm", "clab-warm-gemm", [&](const Napi::Object& o) -> GpuTask {
    const std::vector<GpuGemm::Shape> shapes = get_gemm_shapes(info.Env(), o.Get("gemms"));
    return [shapes](int device, int rank) { NcclComm::warm_gemm(device, rank, shapes); };
  });
}

}  // namespace

void register_device_tasks(Napi::Env env, Napi::Object exports) {
  exports.Set("prepareDevice", Napi::Function::New(env, PrepareDevice, "prepareDevice"));
  exports.Set("warmGemm", Napi::Function::New(env, WarmGemm, "warmGemm"));
}

}  // namespace clab::binding
