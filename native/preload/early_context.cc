// clab_early_context.so: preloaded into a rank process forked for nccl (LD_PRELOAD, set by the
// core and by bin/early-ranks.cjs: bin/early-context.cjs), it begins the GPU's CUDA context as the
// process starts, before Node has booted. Its constructor reads the device the core named
// (CLAB_EARLY_DEVICE), takes itself out of LD_PRELOAD (nothing the rank starts inherits it), and
// on a thread of its own initialises the driver and retains that device's primary context: the
// context the CUDA runtime then uses, which the rank's own start (src/worker/early-device.ts,
// NcclComm::prepare_device) finds made or being made. On 2 × H200 the rank's context was ready
// some 95 ms sooner (2026-11-28, bench/gpu/README.md). Nothing here reports: where the driver
// is missing or refuses, the thread ends and the rank's own start says why. Links nothing of ours,
// of Node or of CUDA (libcuda is opened with dlopen); needs no GPU to build or to load.
#include <dlfcn.h>
#include <pthread.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// The driver API's few signatures used here (cuda.h), results as int: 0 is CUDA_SUCCESS.
using CuInit = int (*)(unsigned);
using CuDeviceGet = int (*)(int*, int);
using CuPrimaryCtxRetain = int (*)(void**, int);

void* begin_context(void* arg) {
  const int ordinal = static_cast<int>(reinterpret_cast<intptr_t>(arg));
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);  // its symbols for no one else
  if (!cuda) return nullptr;
  auto init = reinterpret_cast<CuInit>(dlsym(cuda, "cuInit"));
  auto device_get = reinterpret_cast<CuDeviceGet>(dlsym(cuda, "cuDeviceGet"));
  auto retain = reinterpret_cast<CuPrimaryCtxRetain>(dlsym(cuda, "cuDevicePrimaryCtxRetain"));
  if (!init || !device_get || !retain || init(0) != 0) return nullptr;
  int device = 0;
  void* context = nullptr;
  if (device_get(&device, ordinal) == 0) retain(&context, device);  // kept to the process's end
  return nullptr;
}

/** The device CLAB_EARLY_DEVICE names (1 to 4 digits, as src/worker/early-device.ts reads it), else -1. */
int named_device() {
  const char* value = std::getenv("CLAB_EARLY_DEVICE");
  if (!value) return -1;
  const size_t n = std::strlen(value);
  if (n < 1 || n > 4) return -1;
  for (size_t i = 0; i < n; i++)
    if (value[i] < '0' || value[i] > '9') return -1;
  return std::atoi(value);
}

/** LD_PRELOAD without this library (entries split by ':' or ' ', as the dynamic loader splits them). */
void leave_ld_preload() {
  const char* list = std::getenv("LD_PRELOAD");
  Dl_info self{};
  if (!list || !dladdr(reinterpret_cast<void*>(&leave_ld_preload), &self) || !self.dli_fname) return;
  const std::string me = self.dli_fname;
  std::string kept, entry;
  const std::string all = std::string(list) + ":";
  for (char c : all) {
    if (c != ':' && c != ' ') {
      entry += c;
      continue;
    }
    if (!entry.empty() && entry != me) kept += (kept.empty() ? "" : ":") + entry;
    entry.clear();
  }
  if (kept.empty()) unsetenv("LD_PRELOAD");
  else
    setenv("LD_PRELOAD", kept.c_str(), 1);
}

__attribute__((constructor)) void clab_early_context() {
  leave_ld_preload();
  const int device = named_device();
  if (device < 0) return;
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return;
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  pthread_create(&thread, &attr, begin_context, reinterpret_cast<void*>(static_cast<intptr_t>(device)));
  pthread_attr_destroy(&attr);
}

}  // namespace
