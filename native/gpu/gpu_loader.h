// Loads the GPU libraries with dlopen at run time, once per process, and resolves the functions
// listed in gpu_api.h. Nothing is linked: on a machine without CUDA every load_* returns nullptr
// and says which library is missing, in dlopen's own words. No Node-API here.
#pragma once

#include <string>

#include "gpu/gpu_api.h"

namespace clab::gpu {

#define CLAB_GPU_POINTER(name, ret, params) ret(*name) params = nullptr;

struct CudaRuntime {
  CLAB_CUDART_API(CLAB_GPU_POINTER)
  std::string library;  // the soname that was loaded
};

struct NcclLibrary {
  CLAB_NCCL_API(CLAB_GPU_POINTER)
  CLAB_NCCL_OPTIONAL_API(CLAB_GPU_POINTER)  // nullptr where this NCCL lacks them
  std::string library;
};

struct CublasLibrary {
  CLAB_CUBLAS_API(CLAB_GPU_POINTER)
  std::string library;
};

struct CudaDriver {
  CLAB_CUDA_DRIVER_API(CLAB_GPU_POINTER)
  CLAB_CUDA_DRIVER_OPTIONAL_API(CLAB_GPU_POINTER)  // nullptr where this driver lacks them
  std::string library;
};

struct NvmlLibrary {
  CLAB_NVML_API(CLAB_GPU_POINTER)
  std::string library;
};

#undef CLAB_GPU_POINTER

/**
 * Each returns the loaded library, or nullptr and sets *why, e.g. "libnccl.so.2: cannot open
 * shared object file: No such file or directory". The result (either way) is cached.
 * load_cudart tries libcudart.so.13, then .12; load_cublas the cuBLAS of the same major version;
 * load_nvml also calls nvmlInit_v2.
 */
const CudaRuntime* load_cudart(std::string* why);
const NcclLibrary* load_nccl(std::string* why);
const CublasLibrary* load_cublas(std::string* why);
const NvmlLibrary* load_nvml(std::string* why);
/** libcuda.so.1, the driver API (the data kernels are loaded through it). */
const CudaDriver* load_cuda_driver(std::string* why);

/** What an NCCL library file says of itself: the file dlopen found, and ncclGetVersion's code. */
struct NcclProbe {
  std::string file;
  int version = 0;
};

/**
 * Loads the NCCL at `path` apart from load_nccl's (empty: load_nccl's own), and asks its version:
 * ncclGetVersion only returns a constant, so no CUDA is touched. The handle stays open (NCCL is not
 * made to be unloaded). False, and *why, where it cannot be loaded or is no NCCL.
 */
bool probe_nccl(const std::string& path, NcclProbe* out, std::string* why);

/** "cudaErrorNoDevice (no CUDA-capable device is detected)". */
std::string cuda_error_text(const CudaRuntime& rt, cudaError_t e);
/** The driver API's name and text of `r`: "CUDA_ERROR_NOT_SUPPORTED (operation not supported)". */
std::string driver_error_text(const CudaDriver& d, CUresult r);

/** Compute capability of CUDA device `device` as NCCL writes it (major × 10 + minor: 9.0 → 90); -1 unknown. */
int compute_capability(const CudaRuntime& rt, int device);

/** Dotted version from CUDA's or NCCL's integer form: 13000 -> "13.0", 22803 -> "2.28.3". */
std::string cuda_version_text(int v);
std::string nccl_version_text(int v);

}  // namespace clab::gpu
