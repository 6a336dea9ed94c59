// The few declarations of the CUDA runtime, NCCL, cuBLAS and NVML that the addon calls, written
// from their documented C APIs (enum values and struct layouts are their stable ABI), so that the
// addon builds with none of their headers and loads the libraries with dlopen (gpu_loader.h).
//
// Each library's functions are one X-macro list: X(name, return type, (parameter types)). The
// loader turns a list into a table of function pointers; test/gpu/check_gpu_api.cc expands the
// same lists against the real headers (nccl.h, cuda_runtime_api.h, cublas_v2.h, nvml.h) on the
// GPU machine and static_asserts every prototype, enum value and struct layout used here.
// Names are the exported symbols (cublasCreate_v2, nvmlInit_v2: the real headers' macros map the
// plain names onto them).
#pragma once

#include <cstddef>
#include <cstdint>

namespace clab::gpu {

// ---- CUDA runtime (libcudart.so.13 / .12) --------------------------------------------------

enum cudaError_t : int {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorNotReady = 600,
  cudaErrorPeerAccessAlreadyEnabled = 704,
};
enum cudaMemcpyKind : int { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3 };
enum cudaDeviceP2PAttr : int {
  cudaDevP2PAttrPerformanceRank = 1,
  cudaDevP2PAttrAccessSupported = 2,
  cudaDevP2PAttrNativeAtomicSupported = 3,
};
enum cudaDeviceAttr : int { cudaDevAttrComputeCapabilityMajor = 75, cudaDevAttrComputeCapabilityMinor = 76 };
enum cudaStreamCaptureMode : int {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};
struct CUstream_st;
struct CUevent_st;
struct CUgraph_st;
struct CUgraphExec_st;
constexpr size_t kCudaIpcHandleBytes = 64;  // CUDA_IPC_HANDLE_SIZE
struct cudaIpcMemHandle_t {
  char reserved[kCudaIpcHandleBytes];
};
constexpr unsigned kCudaIpcMemLazyEnablePeerAccess = 0x01;  // cudaIpcMemLazyEnablePeerAccess
using cudaStream_t = CUstream_st*;
using cudaEvent_t = CUevent_st*;
using cudaGraph_t = CUgraph_st*;
using cudaGraphExec_t = CUgraphExec_st*;
constexpr unsigned kCudaStreamNonBlocking = 0x01;    // cudaStreamNonBlocking
constexpr unsigned kCudaEventDefault = 0x00;         // cudaEventDefault
constexpr unsigned kCudaEventDisableTiming = 0x02;   // cudaEventDisableTiming
constexpr unsigned kCudaEventRecordExternal = 0x01;  // cudaEventRecordExternal: a graph node when captured

// The graph calls capture a step's timed loop and replay it (`"launch": "graph"`, gpu/graph_loop.h);
// cudaGraphInstantiate as CUDA 12 and 13 declare it, with flags (CUDA 11's took an error node and a
// log buffer instead), the runtimes load_cudart takes.
#define CLAB_CUDART_API(X)                                                                    \
  X(cudaGetDeviceCount, cudaError_t, (int*))                                                  \
  X(cudaSetDevice, cudaError_t, (int))                                                        \
  X(cudaGetErrorName, const char*, (cudaError_t))                                             \
  X(cudaGetErrorString, const char*, (cudaError_t))                                           \
  X(cudaGetLastError, cudaError_t, ())                                                        \
  X(cudaDriverGetVersion, cudaError_t, (int*))                                                \
  X(cudaRuntimeGetVersion, cudaError_t, (int*))                                               \
  X(cudaDeviceGetPCIBusId, cudaError_t, (char*, int, int))                                    \
  X(cudaDeviceGetP2PAttribute, cudaError_t, (int*, cudaDeviceP2PAttr, int, int))              \
  X(cudaDeviceGetAttribute, cudaError_t, (int*, cudaDeviceAttr, int))                         \
  X(cudaMemGetInfo, cudaError_t, (size_t*, size_t*))                                          \
  X(cudaMalloc, cudaError_t, (void**, size_t))                                                \
  X(cudaFree, cudaError_t, (void*))                                                           \
  X(cudaMemcpyAsync, cudaError_t, (void*, const void*, size_t, cudaMemcpyKind, cudaStream_t)) \
  X(cudaMemsetAsync, cudaError_t, (void*, int, size_t, cudaStream_t))                         \
  X(cudaStreamCreateWithFlags, cudaError_t, (cudaStream_t*, unsigned int))                    \
  X(cudaStreamCreateWithPriority, cudaError_t, (cudaStream_t*, unsigned int, int))            \
  X(cudaDeviceGetStreamPriorityRange, cudaError_t, (int*, int*))                              \
  X(cudaStreamDestroy, cudaError_t, (cudaStream_t))                                           \
  X(cudaStreamSynchronize, cudaError_t, (cudaStream_t))                                       \
  X(cudaEventCreateWithFlags, cudaError_t, (cudaEvent_t*, unsigned int))                      \
  X(cudaEventDestroy, cudaError_t, (cudaEvent_t))                                             \
  X(cudaEventRecord, cudaError_t, (cudaEvent_t, cudaStream_t))                                \
  X(cudaEventRecordWithFlags, cudaError_t, (cudaEvent_t, cudaStream_t, unsigned int))         \
  X(cudaEventQuery, cudaError_t, (cudaEvent_t))                                               \
  X(cudaStreamWaitEvent, cudaError_t, (cudaStream_t, cudaEvent_t, unsigned int))              \
  X(cudaEventElapsedTime, cudaError_t, (float*, cudaEvent_t, cudaEvent_t))                    \
  X(cudaDeviceCanAccessPeer, cudaError_t, (int*, int, int))                                   \
  X(cudaDeviceEnablePeerAccess, cudaError_t, (int, unsigned int))                             \
  X(cudaDeviceDisablePeerAccess, cudaError_t, (int))                                          \
  X(cudaMemcpyPeerAsync, cudaError_t, (void*, int, const void*, int, size_t, cudaStream_t))   \
  X(cudaIpcGetMemHandle, cudaError_t, (cudaIpcMemHandle_t*, void*))                           \
  X(cudaIpcOpenMemHandle, cudaError_t, (void**, cudaIpcMemHandle_t, unsigned int))            \
  X(cudaIpcCloseMemHandle, cudaError_t, (void*))                                              \
  X(cudaStreamBeginCapture, cudaError_t, (cudaStream_t, cudaStreamCaptureMode))               \
  X(cudaStreamEndCapture, cudaError_t, (cudaStream_t, cudaGraph_t*))                          \
  X(cudaGraphInstantiate, cudaError_t, (cudaGraphExec_t*, cudaGraph_t, unsigned long long))   \
  X(cudaGraphLaunch, cudaError_t, (cudaGraphExec_t, cudaStream_t))                            \
  X(cudaGraphExecDestroy, cudaError_t, (cudaGraphExec_t))                                     \
  X(cudaGraphDestroy, cudaError_t, (cudaGraph_t))

// ---- NCCL (libnccl.so.2) -------------------------------------------------------------------

enum ncclResult_t : int {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
};
enum ncclDataType_t : int {
  ncclInt8 = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclFloat32 = 7,
  ncclFloat64 = 8,
  ncclBfloat16 = 9,
  ncclFloat8e4m3 = 10,  // NCCL >= 2.24; reductions need sm_90 or later
  ncclFloat8e5m2 = 11,
};
enum ncclRedOp_t : int { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 };
struct ncclComm;
using ncclComm_t = ncclComm*;
constexpr size_t kNcclUniqueIdBytes = 128;  // NCCL_UNIQUE_ID_BYTES
struct ncclUniqueId {
  char internal[kNcclUniqueIdBytes];
};
struct ncclWindow_vidmem;
using ncclWindow_t = ncclWindow_vidmem*;
constexpr int kNcclConfigUndefInt = -2147483647 - 1;  // NCCL_CONFIG_UNDEF_INT (INT_MIN)
constexpr unsigned kNcclApiMagic = 0xcafebeef;        // NCCL_API_MAGIC
constexpr int kNcclCtaPolicyDefault = 0x00;           // NCCL_CTA_POLICY_DEFAULT
constexpr int kNcclCtaPolicyEfficiency = 0x01;        // NCCL_CTA_POLICY_EFFICIENCY
constexpr int kNcclCtaPolicyZero = 0x02;              // NCCL_CTA_POLICY_ZERO (NCCL 2.29: no CTA where NCCL can)
constexpr int kNcclWinCollSymmetric = 0x01;           // NCCL_WIN_COLL_SYMMETRIC
/**
 * The leading fields of ncclConfig_t, up to CTAPolicy (NCCL 2.27's layout). NCCL copies `size`
 * bytes of it over its defaults and reads each field only where `version` says it exists
 * (parseCommConfig), so a prefix is a whole config to any NCCL that takes one.
 */
struct ncclConfig_t {
  size_t size;
  unsigned int magic;
  unsigned int version;
  int blocking;
  int cgaClusterSize;
  int minCTAs;
  int maxCTAs;
  const char* netName;
  int splitShare;
  int trafficClass;
  const char* commName;
  int collnetEnable;
  int CTAPolicy;
};
constexpr unsigned kNcclConfigVersion = 22700;  // the layout above: NCCL 2.27

/**
 * A collective's own configuration, taken by NCCL 2.31's nccl*Config entry points (its 2.31
 * layout; 2.32 appends a completion event). NCCL reads `size` bytes of it and each field only where
 * `version` says it exists, so this prefix is a whole config to any NCCL that takes one. The lab sets
 * userProfilerTag alone (nccl/nccl_tag.h): the tag NCCL's profiler v7 hands the plug-in with the
 * call's events; every other field stays undefined, so the call runs as the plain one would.
 */
struct ncclCollConfig_t {
  size_t size;
  unsigned int magic;
  unsigned int version;
  void* ext;  // ncclConfigExt_t*: none
  int minCTAs;
  int maxCTAs;
  int nvlsCTAs;
  int cgaClusterSize;
  const char* algSelection;
  int forceAlgSelection;
  int CTAPolicy;
  uint64_t userProfilerTag;  // 0: untagged; NCCL reserves the tags whose most significant bit is set
};
constexpr unsigned kNcclCollConfigVersion = 23100;  // the layout above: NCCL 2.31

#define CLAB_NCCL_API(X)                                                                                                  \
  X(ncclGetVersion, ncclResult_t, (int*))                                                                                 \
  X(ncclGetUniqueId, ncclResult_t, (ncclUniqueId*))                                                                       \
  X(ncclCommInitRank, ncclResult_t, (ncclComm_t*, int, ncclUniqueId, int))                                                \
  X(ncclCommDestroy, ncclResult_t, (ncclComm_t))                                                                          \
  X(ncclCommAbort, ncclResult_t, (ncclComm_t))                                                                            \
  X(ncclCommGetAsyncError, ncclResult_t, (ncclComm_t, ncclResult_t*))                                                     \
  X(ncclGetErrorString, const char*, (ncclResult_t))                                                                      \
  X(ncclGroupStart, ncclResult_t, ())                                                                                     \
  X(ncclGroupEnd, ncclResult_t, ())                                                                                       \
  X(ncclAllReduce, ncclResult_t, (const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t))     \
  X(ncclBroadcast, ncclResult_t, (const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))             \
  X(ncclReduce, ncclResult_t, (const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t, cudaStream_t))   \
  X(ncclAllGather, ncclResult_t, (const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t))                  \
  X(ncclReduceScatter, ncclResult_t, (const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t)) \
  X(ncclSend, ncclResult_t, (const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))                         \
  X(ncclRecv, ncclResult_t, (void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))

// Optional: resolved when the loaded library has them (nullptr otherwise), so an older libnccl.so.2
// still loads. Each list is the functions new in one NCCL version (test/gpu/check_gpu_api.cc checks
// a list only against headers of that version or later).
// New in NCCL 2.13: the text of the last NCCL WARN (process-wide, whatever `comm` is); errors add it.
#define CLAB_NCCL_SINCE_2_13_API(X) X(ncclGetLastError, const char*, (ncclComm_t))
// New in NCCL 2.28: without them, all_to_all, gather and scatter are done as grouped send/recv.
#define CLAB_NCCL_SINCE_2_28_API(X)                                                                        \
  X(ncclAlltoAll, ncclResult_t, (const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t))    \
  X(ncclGather, ncclResult_t, (const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t)) \
  X(ncclScatter, ncclResult_t, (const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))
// New in NCCL 2.19: user buffer registration (a scenario's registerBuffers).
#define CLAB_NCCL_SINCE_2_19_API(X)                                      \
  X(ncclMemAlloc, ncclResult_t, (void**, size_t))                        \
  X(ncclMemFree, ncclResult_t, (void*))                                  \
  X(ncclCommRegister, ncclResult_t, (ncclComm_t, void*, size_t, void**)) \
  X(ncclCommDeregister, ncclResult_t, (ncclComm_t, void*))
// New in NCCL 2.18: a communicator split from another with a configuration of its own (a compare
// variant's `nccl` settings).
#define CLAB_NCCL_SINCE_2_18_API(X) X(ncclCommSplit, ncclResult_t, (ncclComm_t, int, int, ncclComm_t*, ncclConfig_t*))
// New in NCCL 2.27: window registration, the buffers NCCL's zero-SM policy (CTAPolicy zero, 2.29) works on.
#define CLAB_NCCL_SINCE_2_27_API(X)                                                        \
  X(ncclCommWindowRegister, ncclResult_t, (ncclComm_t, void*, size_t, ncclWindow_t*, int)) \
  X(ncclCommWindowDeregister, ncclResult_t, (ncclComm_t, ncclWindow_t))
// New in NCCL 2.31: each collective with a configuration of its own (ncclCollConfig_t), through which
// a step's calls carry its tag to NCCL's profiler (NcclComm::issue). Send and recv have none.
#define CLAB_NCCL_SINCE_2_31_API(X)                                                                                                       \
  X(ncclAllReduceConfig, ncclResult_t,                                                                                                    \
    (const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t, const ncclCollConfig_t*))                         \
  X(ncclBroadcastConfig, ncclResult_t,                                                                                                    \
    (const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t, const ncclCollConfig_t*))                                 \
  X(ncclReduceConfig, ncclResult_t,                                                                                                       \
    (const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t, cudaStream_t, const ncclCollConfig_t*))                    \
  X(ncclAllGatherConfig, ncclResult_t, (const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t, const ncclCollConfig_t*))   \
  X(ncclReduceScatterConfig, ncclResult_t,                                                                                                \
    (const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t, const ncclCollConfig_t*))                         \
  X(ncclAlltoAllConfig, ncclResult_t, (const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t, const ncclCollConfig_t*))    \
  X(ncclGatherConfig, ncclResult_t, (const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t, const ncclCollConfig_t*)) \
  X(ncclScatterConfig, ncclResult_t, (const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t, const ncclCollConfig_t*))
#define CLAB_NCCL_OPTIONAL_API(X) \
  CLAB_NCCL_SINCE_2_13_API(X)     \
  CLAB_NCCL_SINCE_2_18_API(X)     \
  CLAB_NCCL_SINCE_2_19_API(X) CLAB_NCCL_SINCE_2_27_API(X) CLAB_NCCL_SINCE_2_28_API(X) CLAB_NCCL_SINCE_2_31_API(X)

// ---- cuBLAS (libcublas.so.13 / .12) --------------------------------------------------------

enum cublasStatus_t : int { CUBLAS_STATUS_SUCCESS = 0 };
enum cublasOperation_t : int { CUBLAS_OP_N = 0 };
enum cudaDataType : int { CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_16BF = 14 };
enum cublasComputeType_t : int { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_64F = 70 };
enum cublasGemmAlgo_t : int { CUBLAS_GEMM_DEFAULT = -1 };
enum libraryPropertyType : int { MAJOR_VERSION = 0, MINOR_VERSION = 1, PATCH_LEVEL = 2 };
struct cublasContext;
using cublasHandle_t = cublasContext*;

#define CLAB_CUBLAS_API(X)                                                                                                          \
  X(cublasCreate_v2, cublasStatus_t, (cublasHandle_t*))                                                                             \
  X(cublasDestroy_v2, cublasStatus_t, (cublasHandle_t))                                                                             \
  X(cublasSetStream_v2, cublasStatus_t, (cublasHandle_t, cudaStream_t))                                                             \
  X(cublasSetSmCountTarget, cublasStatus_t, (cublasHandle_t, int))                                                                  \
  X(cublasGetProperty, cublasStatus_t, (libraryPropertyType, int*))                                                                 \
  X(cublasGetStatusName, const char*, (cublasStatus_t))                                                                             \
  X(cublasGemmEx, cublasStatus_t,                                                                                                   \
    (cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*, const void*, cudaDataType, int, const void*, \
     cudaDataType, int, const void*, void*, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t))

// ---- NVML (libnvidia-ml.so.1, part of the driver) ------------------------------------------

enum nvmlReturn_t : int { NVML_SUCCESS = 0 };
enum nvmlEnableState_t : int { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 };
enum nvmlGpuTopologyLevel_t : int {
  NVML_TOPOLOGY_INTERNAL = 0,
  NVML_TOPOLOGY_SINGLE = 10,
  NVML_TOPOLOGY_MULTIPLE = 20,
  NVML_TOPOLOGY_HOSTBRIDGE = 30,
  NVML_TOPOLOGY_NODE = 40,
  NVML_TOPOLOGY_SYSTEM = 50,
};
enum nvmlIntNvLinkDeviceType_t : int { NVML_NVLINK_DEVICE_TYPE_GPU = 0x00, NVML_NVLINK_DEVICE_TYPE_SWITCH = 0x02 };
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};
constexpr unsigned kNvmlNvlinkMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS
constexpr unsigned kNvmlNameBytes = 96;       // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kNvmlVersionBytes = 80;    // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

#define CLAB_NVML_API(X)                                                                                         \
  X(nvmlInit_v2, nvmlReturn_t, ())                                                                               \
  X(nvmlErrorString, const char*, (nvmlReturn_t))                                                                \
  X(nvmlSystemGetDriverVersion, nvmlReturn_t, (char*, unsigned int))                                             \
  X(nvmlDeviceGetCount_v2, nvmlReturn_t, (unsigned int*))                                                        \
  X(nvmlDeviceGetHandleByIndex_v2, nvmlReturn_t, (unsigned int, nvmlDevice_t*))                                  \
  X(nvmlDeviceGetMigMode, nvmlReturn_t, (nvmlDevice_t, unsigned int*, unsigned int*))                            \
  X(nvmlDeviceGetHandleByPciBusId_v2, nvmlReturn_t, (const char*, nvmlDevice_t*))                                \
  X(nvmlDeviceGetName, nvmlReturn_t, (nvmlDevice_t, char*, unsigned int))                                        \
  X(nvmlDeviceGetMemoryInfo, nvmlReturn_t, (nvmlDevice_t, nvmlMemory_t*))                                        \
  X(nvmlDeviceGetPciInfo_v3, nvmlReturn_t, (nvmlDevice_t, nvmlPciInfo_t*))                                       \
  X(nvmlDeviceGetNvLinkState, nvmlReturn_t, (nvmlDevice_t, unsigned int, nvmlEnableState_t*))                    \
  X(nvmlDeviceGetNvLinkRemotePciInfo_v2, nvmlReturn_t, (nvmlDevice_t, unsigned int, nvmlPciInfo_t*))             \
  X(nvmlDeviceGetNvLinkRemoteDeviceType, nvmlReturn_t, (nvmlDevice_t, unsigned int, nvmlIntNvLinkDeviceType_t*)) \
  X(nvmlDeviceGetTopologyCommonAncestor, nvmlReturn_t, (nvmlDevice_t, nvmlDevice_t, nvmlGpuTopologyLevel_t*))    \
  X(nvmlDeviceGetNvLinkVersion, nvmlReturn_t, (nvmlDevice_t, unsigned int, unsigned int*))                       \
  X(nvmlDeviceGetMaxPcieLinkGeneration, nvmlReturn_t, (nvmlDevice_t, unsigned int*))                             \
  X(nvmlDeviceGetMaxPcieLinkWidth, nvmlReturn_t, (nvmlDevice_t, unsigned int*))

// ---- CUDA driver (libcuda.so.1): loading the data kernels' PTX (data_device.cc) ------------

enum CUresult : int { CUDA_SUCCESS = 0 };
struct CUmod_st;
struct CUfunc_st;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;

#define CLAB_CUDA_DRIVER_API(X)                                                                                                          \
  X(cuModuleLoadData, CUresult, (CUmodule*, const void*))                                                                                \
  X(cuModuleGetFunction, CUresult, (CUfunction*, CUmodule, const char*))                                                                 \
  X(cuLaunchKernel, CUresult,                                                                                                            \
    (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, cudaStream_t, void**, \
     void**))                                                                                                                            \
  X(cuGetErrorName, CUresult, (CUresult, const char**))                                                                                  \
  X(cuGetErrorString, CUresult, (CUresult, const char**))

// Stream memory operations (a copy-engine transfer's end, nccl_copy_engine.cc): nullptr where this
// driver lacks them (before CUDA 11.7's _v2 names). Supported on every device from CUDA 12's
// drivers on; a call refused (CUDA_ERROR_NOT_SUPPORTED) says CLAB_COPY_ENGINE_SIGNAL=nccl.
using CUdeviceptr = unsigned long long;
constexpr unsigned kCuStreamWaitValueGeq = 0x0;       // CU_STREAM_WAIT_VALUE_GEQ: (int32_t)(*addr - value) >= 0
constexpr unsigned kCuStreamWriteValueDefault = 0x0;  // CU_STREAM_WRITE_VALUE_DEFAULT: a memory fence before the write

#define CLAB_CUDA_DRIVER_OPTIONAL_API(X)                                                   \
  X(cuStreamWaitValue32_v2, CUresult, (cudaStream_t, CUdeviceptr, uint32_t, unsigned int)) \
  X(cuStreamWriteValue32_v2, CUresult, (cudaStream_t, CUdeviceptr, uint32_t, unsigned int))

}  // namespace clab::gpu
