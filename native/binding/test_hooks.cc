// A test-only Node-API module (clab_test_hooks.node, never loaded by the lab): what the tests need
// to see that the shipped addon does not show, such as the C matrix of the gemm stand-in.
#include <napi.h>

#include "common/errors.h"
#include "common/gemm.h"
#include "gpu/device_memory.h"
#include "gpu/gpu_errors.h"
#include "gpu/gpu_gemm.h"

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

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("gemmResult", Napi::Function::New(env, GemmResult, "gemmResult"));
  exports.Set("gpuGemmResult", Napi::Function::New(env, GpuGemmResult, "gpuGemmResult"));
  return exports;
}

}  // namespace

NODE_API_MODULE(clab_test_hooks, Init)
