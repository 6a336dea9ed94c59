#include "gpu/gpu_loader.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <mutex>

namespace clab::gpu {

namespace {

/** dlopen of the first name that loads; on failure *why holds every name's dlerror. */
void* open_first(std::initializer_list<const char*> names, std::string* loaded, std::string* why) {
  std::string errors;
  for (const char* name : names) {
    dlerror();
    if (void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) {
      *loaded = name;
      return h;
    }
    const char* e = dlerror();
    if (!errors.empty()) errors += "; ";
    errors += e ? e : std::string(name) + ": cannot be loaded";
  }
  *why = errors;
  return nullptr;
}

/** Resolves one symbol into `fn`; a missing required one sets *why. */
template <class Fn>
bool resolve(void* handle, const std::string& library, const char* symbol, Fn*& fn, bool required, std::string* why) {
  fn = reinterpret_cast<Fn*>(dlsym(handle, symbol));
  if (fn || !required) return true;
  if (why->empty()) *why = library + " has no " + symbol + " (too old a version?)";
  return false;
}

template <class Lib>
struct Loaded {
  std::once_flag once;
  Lib lib;
  bool ok = false;
  std::string why;
};

/**
 * Loads a library once for the process: `load(lib, why)` opens it and resolves its symbols, leaving
 * `why` empty where all went well. Every call gives that one result: the library, or null and why.
 */
template <class Lib, class Load>
const Lib* load_once(Loaded<Lib>& state, std::string* why_out, Load load) {
  std::call_once(state.once, [&] {
    load(state.lib, state.why);
    state.ok = state.why.empty();
  });
  if (!state.ok) *why_out = state.why;
  return state.ok ? &state.lib : nullptr;
}

#define CLAB_RESOLVE_REQUIRED(name, ret, params) resolve(h, lib.library, #name, lib.name, true, &why);
#define CLAB_RESOLVE_OPTIONAL(name, ret, params) resolve(h, lib.library, #name, lib.name, false, &why);

/**
 * The NCCL a rank loads: CLAB_NCCL_LIBRARY names one libnccl to use instead of the one the loader
 * finds (e.g. the one a PyTorch wheel bundles; `clab run --nccl` sets it for the ranks); when set,
 * nothing else is tried.
 */
void* open_nccl(std::string* loaded, std::string* why) {
  const char* chosen = std::getenv("CLAB_NCCL_LIBRARY");
  void* h = chosen && *chosen ? open_first({chosen}, loaded, why) : open_first({"libnccl.so.2"}, loaded, why);
  if (!h && chosen && *chosen) *why = "CLAB_NCCL_LIBRARY=" + std::string(chosen) + ": " + *why;
  return h;
}

/** The file that holds `symbol` (dlopen's name may be a link or a bare soname). */
std::string file_of(void* symbol, const std::string& fallback) {
  Dl_info info{};
  return dladdr(symbol, &info) && info.dli_fname ? info.dli_fname : fallback;
}

}  // namespace

const CudaRuntime* load_cudart(std::string* why_out) {
  static Loaded<CudaRuntime> state;
  return load_once(state, why_out, [](CudaRuntime& lib, std::string& why) {
    void* h = open_first({"libcudart.so.13", "libcudart.so.12"}, &lib.library, &why);
    if (!h) return;
    CLAB_CUDART_API(CLAB_RESOLVE_REQUIRED)
  });
}

const CudaDriver* load_cuda_driver(std::string* why_out) {
  static Loaded<CudaDriver> state;
  return load_once(state, why_out, [](CudaDriver& lib, std::string& why) {
    void* h = open_first({"libcuda.so.1"}, &lib.library, &why);
    if (!h) return;
    CLAB_CUDA_DRIVER_API(CLAB_RESOLVE_REQUIRED)
    CLAB_CUDA_DRIVER_OPTIONAL_API(CLAB_RESOLVE_OPTIONAL)
  });
}

const NcclLibrary* load_nccl(std::string* why_out) {
  static Loaded<NcclLibrary> state;
  return load_once(state, why_out, [](NcclLibrary& lib, std::string& why) {
    void* h = open_nccl(&lib.library, &why);
    if (!h) return;
    CLAB_NCCL_API(CLAB_RESOLVE_REQUIRED)
    CLAB_NCCL_OPTIONAL_API(CLAB_RESOLVE_OPTIONAL)
    if (!why.empty()) return;
    // NCCL writes its WARN (and INFO) lines to the C stdout without flushing it. A rank's stdout is a
    // pipe to the lab core, which stdio buffers fully: the lines would reach the core only when the
    // rank exits (never, if it is killed), after the `failed` message they explain. Line by line instead.
    std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
    lib.library = file_of(reinterpret_cast<void*>(lib.ncclGetVersion), lib.library);  // for the run's environment
  });
}

bool probe_nccl(const std::string& path, NcclProbe* out, std::string* why) {
  // This process's own NCCL first: once a library is loaded by path, every later dlopen of its soname
  // ("libnccl.so.2", load_nccl's) is answered with it, and the loader's own would never be seen.
  const NcclLibrary* own = load_nccl(why);
  if (path.empty()) {
    int version = 0;
    if (!own) return false;
    if (own->ncclGetVersion(&version) != ncclSuccess || version <= 0) {
      *why = own->library + ": ncclGetVersion gave no version";
      return false;
    }
    out->file = own->library;
    out->version = version;
    return true;
  }
  why->clear();
  std::string loaded;
  void* h = open_first({path.c_str()}, &loaded, why);
  if (!h) return false;
  using GetVersion = ncclResult_t(int*);
  GetVersion* get_version = nullptr;
  if (!resolve(h, loaded, "ncclGetVersion", get_version, true, why)) return false;
  int version = 0;
  if (get_version(&version) != ncclSuccess || version <= 0) {
    *why = loaded + ": ncclGetVersion gave no version";
    return false;
  }
  out->file = file_of(reinterpret_cast<void*>(get_version), loaded);
  out->version = version;
  return true;
}

const CublasLibrary* load_cublas(std::string* why_out) {
  static Loaded<CublasLibrary> state;
  return load_once(state, why_out, [](CublasLibrary& lib, std::string& why) {
    const CudaRuntime* rt = load_cudart(&why);
    if (!rt) return;
    // cuBLAS must match the runtime's major version.
    const bool v12 = rt->library == "libcudart.so.12";
    void* h = open_first({v12 ? "libcublas.so.12" : "libcublas.so.13"}, &lib.library, &why);
    if (!h) return;
    CLAB_CUBLAS_API(CLAB_RESOLVE_REQUIRED)
  });
}

const NvmlLibrary* load_nvml(std::string* why_out) {
  static Loaded<NvmlLibrary> state;
  return load_once(state, why_out, [](NvmlLibrary& lib, std::string& why) {
    void* h = open_first({"libnvidia-ml.so.1"}, &lib.library, &why);
    if (!h) return;
    CLAB_NVML_API(CLAB_RESOLVE_REQUIRED)
    if (!why.empty()) return;
    const nvmlReturn_t r = lib.nvmlInit_v2();
    if (r != NVML_SUCCESS) why = "nvmlInit failed: " + std::string(lib.nvmlErrorString(r));
  });
}

#undef CLAB_RESOLVE_REQUIRED
#undef CLAB_RESOLVE_OPTIONAL

int compute_capability(const CudaRuntime& rt, int device) {
  int major = 0, minor = 0;
  if (rt.cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      rt.cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess)
    return -1;
  return major * 10 + minor;
}

std::string cuda_error_text(const CudaRuntime& rt, cudaError_t e) {
  return std::string(rt.cudaGetErrorName(e)) + " (" + rt.cudaGetErrorString(e) + ")";
}

std::string driver_error_text(const CudaDriver& d, CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  d.cuGetErrorName(r, &name);
  d.cuGetErrorString(r, &text);
  return std::string(name ? name : "CUDA_ERROR_" + std::to_string(static_cast<int>(r))) + (text ? std::string(" (") + text + ")" : "");
}

std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

std::string nccl_version_text(int v) {
  return std::to_string(v / 10000) + "." + std::to_string((v % 10000) / 100) + "." + std::to_string(v % 100);
}

}  // namespace clab::gpu
