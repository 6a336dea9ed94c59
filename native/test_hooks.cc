// A test-only Node-API module (clab_test_hooks.node, never loaded by the lab): what the tests need
// to see that the shipped addon does not show, such as the C matrix of the gemm stand-in.
#include <napi.h>

#include "errors.h"
#include "gemm.h"

namespace {

using namespace clab;

// gemmResult(dtype, m, n, k): C of the gemm stand-in, as bytes (a test's arguments, checked loosely).
Napi::Value GemmResult(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  try {
    Dtype dtype;
    const std::string d = info[0].ToString().Utf8Value();
    if (!parse_dtype(d, &dtype)) throw_invalid("dtype: unknown dtype '" + d + "'");
    const auto dim = [&](int i) { return static_cast<uint64_t>(info[i].ToNumber().Int64Value()); };
    const uint64_t m = dim(1), n = dim(2), k = dim(3);
    validate_gemm("gemm", dtype, m, n, k);
    GemmWorkspace ws;
    ws.run(dtype, m, n, k);
    return Napi::Buffer<uint8_t>::Copy(env, ws.c().data(), ws.c().size());
  } catch (const ClabError& e) {
    Napi::Error err = Napi::Error::New(env, e.what());
    err.Set("code", e.code_name());
    throw err;
  }
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("gemmResult", Napi::Function::New(env, GemmResult, "gemmResult"));
  return exports;
}

}  // namespace

NODE_API_MODULE(clab_test_hooks, Init)
