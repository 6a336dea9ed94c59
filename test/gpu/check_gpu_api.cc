// Compiled on the GPU machine by test/gpu/run.sh (never linked, never run):
//   g++ -std=c++17 -fsyntax-only -I/usr/local/cuda/include test/gpu/check_gpu_api.cc
// It holds native/gpu/gpu_api.h — our own declarations of the CUDA runtime and driver, NCCL, cuBLAS and NVML —
// against the real headers: every prototype in its lists (expanded here, where the type names are
// the real headers' own), every enum value, constant and struct layout that it declares.
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <library_types.h>
#include <nccl.h>
#include <nvml.h>

#include <cstddef>
#include <type_traits>

#include "../../native/gpu/gpu_api.h"

namespace g = clab::gpu;

// ---- prototypes ------------------------------------------------------------------------------

// A pointer of exactly our type, initialized from the real function: it compiles only if the real
// header declares `name` with that very prototype (among its overloads: cuBLAS's C++ header adds a
// cublasGemmEx taking cudaDataType as the compute type, so decltype(&name) alone is ambiguous).
#define CLAB_SAME_PROTOTYPE(name, ret, params) \
  [[maybe_unused]] static ret(*const check_##name) params = &::name;
CLAB_CUDART_API(CLAB_SAME_PROTOTYPE)
CLAB_NCCL_API(CLAB_SAME_PROTOTYPE)
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 13, 0)
CLAB_NCCL_SINCE_2_13_API(CLAB_SAME_PROTOTYPE)
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0)
CLAB_NCCL_SINCE_2_18_API(CLAB_SAME_PROTOTYPE)
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0)
CLAB_NCCL_SINCE_2_19_API(CLAB_SAME_PROTOTYPE)
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
CLAB_NCCL_SINCE_2_27_API(CLAB_SAME_PROTOTYPE)
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
CLAB_NCCL_SINCE_2_28_API(CLAB_SAME_PROTOTYPE)
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 31, 0)
CLAB_NCCL_SINCE_2_31_API(CLAB_SAME_PROTOTYPE)
#endif
CLAB_CUBLAS_API(CLAB_SAME_PROTOTYPE)
CLAB_NVML_API(CLAB_SAME_PROTOTYPE)
CLAB_CUDA_DRIVER_API(CLAB_SAME_PROTOTYPE)
CLAB_CUDA_DRIVER_OPTIONAL_API(CLAB_SAME_PROTOTYPE)
static_assert(g::kCuStreamWaitValueGeq == CU_STREAM_WAIT_VALUE_GEQ, "CU_STREAM_WAIT_VALUE_GEQ differs");
static_assert(g::kCuStreamWriteValueDefault == CU_STREAM_WRITE_VALUE_DEFAULT, "CU_STREAM_WRITE_VALUE_DEFAULT differs");
static_assert(std::is_same_v<g::CUdeviceptr, ::CUdeviceptr>, "CUdeviceptr differs");

// ---- enum values -----------------------------------------------------------------------------

#define CLAB_SAME_VALUE(name) static_assert(static_cast<long>(g::name) == static_cast<long>(::name), #name " differs");
CLAB_SAME_VALUE(cudaSuccess)
CLAB_SAME_VALUE(CUDA_SUCCESS)
CLAB_SAME_VALUE(cudaErrorInvalidValue)
CLAB_SAME_VALUE(cudaErrorMemoryAllocation)
CLAB_SAME_VALUE(cudaErrorInsufficientDriver)
CLAB_SAME_VALUE(cudaErrorNoDevice)
CLAB_SAME_VALUE(cudaErrorInvalidDevice)
CLAB_SAME_VALUE(cudaErrorNotReady)
CLAB_SAME_VALUE(cudaErrorPeerAccessAlreadyEnabled)
CLAB_SAME_VALUE(cudaMemcpyHostToDevice)
CLAB_SAME_VALUE(cudaMemcpyDeviceToHost)
CLAB_SAME_VALUE(cudaMemcpyDeviceToDevice)
CLAB_SAME_VALUE(cudaDevP2PAttrPerformanceRank)
CLAB_SAME_VALUE(cudaDevP2PAttrAccessSupported)
CLAB_SAME_VALUE(cudaDevP2PAttrNativeAtomicSupported)
CLAB_SAME_VALUE(cudaDevAttrComputeCapabilityMajor)
CLAB_SAME_VALUE(cudaDevAttrComputeCapabilityMinor)
CLAB_SAME_VALUE(cudaStreamCaptureModeGlobal)
CLAB_SAME_VALUE(cudaStreamCaptureModeThreadLocal)
CLAB_SAME_VALUE(cudaStreamCaptureModeRelaxed)
static_assert(g::kCudaStreamNonBlocking == cudaStreamNonBlocking, "cudaStreamNonBlocking differs");
static_assert(g::kCudaEventDefault == cudaEventDefault, "cudaEventDefault differs");
static_assert(g::kCudaEventDisableTiming == cudaEventDisableTiming, "cudaEventDisableTiming differs");
static_assert(g::kCudaEventRecordExternal == cudaEventRecordExternal, "cudaEventRecordExternal differs");

CLAB_SAME_VALUE(ncclSuccess)
CLAB_SAME_VALUE(ncclUnhandledCudaError)
CLAB_SAME_VALUE(ncclSystemError)
CLAB_SAME_VALUE(ncclInternalError)
CLAB_SAME_VALUE(ncclInvalidArgument)
CLAB_SAME_VALUE(ncclInvalidUsage)
CLAB_SAME_VALUE(ncclRemoteError)
CLAB_SAME_VALUE(ncclInProgress)
CLAB_SAME_VALUE(ncclInt8)
CLAB_SAME_VALUE(ncclUint8)
CLAB_SAME_VALUE(ncclInt32)
CLAB_SAME_VALUE(ncclUint32)
CLAB_SAME_VALUE(ncclInt64)
CLAB_SAME_VALUE(ncclUint64)
CLAB_SAME_VALUE(ncclFloat16)
CLAB_SAME_VALUE(ncclFloat32)
CLAB_SAME_VALUE(ncclFloat64)
CLAB_SAME_VALUE(ncclBfloat16)
CLAB_SAME_VALUE(ncclFloat8e4m3)
CLAB_SAME_VALUE(ncclFloat8e5m2)
CLAB_SAME_VALUE(ncclSum)
CLAB_SAME_VALUE(ncclProd)
CLAB_SAME_VALUE(ncclMax)
CLAB_SAME_VALUE(ncclMin)
CLAB_SAME_VALUE(ncclAvg)

CLAB_SAME_VALUE(CUBLAS_STATUS_SUCCESS)
CLAB_SAME_VALUE(CUBLAS_OP_N)
CLAB_SAME_VALUE(CUDA_R_32F)
CLAB_SAME_VALUE(CUDA_R_64F)
CLAB_SAME_VALUE(CUDA_R_16F)
CLAB_SAME_VALUE(CUDA_R_16BF)
CLAB_SAME_VALUE(CUBLAS_COMPUTE_32F)
CLAB_SAME_VALUE(CUBLAS_COMPUTE_64F)
CLAB_SAME_VALUE(CUBLAS_GEMM_DEFAULT)
CLAB_SAME_VALUE(MAJOR_VERSION)
CLAB_SAME_VALUE(MINOR_VERSION)
CLAB_SAME_VALUE(PATCH_LEVEL)

CLAB_SAME_VALUE(NVML_SUCCESS)
CLAB_SAME_VALUE(NVML_FEATURE_DISABLED)
CLAB_SAME_VALUE(NVML_FEATURE_ENABLED)
CLAB_SAME_VALUE(NVML_TOPOLOGY_INTERNAL)
CLAB_SAME_VALUE(NVML_TOPOLOGY_SINGLE)
CLAB_SAME_VALUE(NVML_TOPOLOGY_MULTIPLE)
CLAB_SAME_VALUE(NVML_TOPOLOGY_HOSTBRIDGE)
CLAB_SAME_VALUE(NVML_TOPOLOGY_NODE)
CLAB_SAME_VALUE(NVML_TOPOLOGY_SYSTEM)
CLAB_SAME_VALUE(NVML_NVLINK_DEVICE_TYPE_GPU)
CLAB_SAME_VALUE(NVML_NVLINK_DEVICE_TYPE_SWITCH)
static_assert(g::kNvmlNvlinkMaxLinks == NVML_NVLINK_MAX_LINKS, "NVML_NVLINK_MAX_LINKS differs");
static_assert(g::kNvmlNameBytes == NVML_DEVICE_NAME_V2_BUFFER_SIZE, "NVML_DEVICE_NAME_V2_BUFFER_SIZE differs");
static_assert(g::kNvmlVersionBytes == NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE, "NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE differs");
static_assert(g::kNcclUniqueIdBytes == NCCL_UNIQUE_ID_BYTES, "NCCL_UNIQUE_ID_BYTES differs");

// ---- sizes and layouts -----------------------------------------------------------------------

#define CLAB_SAME_SIZE(type) static_assert(sizeof(g::type) == sizeof(::type), "sizeof(" #type ") differs");
CLAB_SAME_SIZE(cudaError_t)
CLAB_SAME_SIZE(cudaMemcpyKind)
CLAB_SAME_SIZE(cudaDeviceP2PAttr)
CLAB_SAME_SIZE(cudaStreamCaptureMode)
CLAB_SAME_SIZE(ncclResult_t)
CLAB_SAME_SIZE(ncclDataType_t)
CLAB_SAME_SIZE(ncclRedOp_t)
CLAB_SAME_SIZE(ncclUniqueId)
CLAB_SAME_SIZE(cublasStatus_t)
CLAB_SAME_SIZE(cublasOperation_t)
CLAB_SAME_SIZE(cudaDataType)
CLAB_SAME_SIZE(cublasComputeType_t)
CLAB_SAME_SIZE(cublasGemmAlgo_t)
CLAB_SAME_SIZE(libraryPropertyType)
CLAB_SAME_SIZE(nvmlReturn_t)
CLAB_SAME_SIZE(nvmlEnableState_t)
CLAB_SAME_SIZE(nvmlGpuTopologyLevel_t)
CLAB_SAME_SIZE(nvmlIntNvLinkDeviceType_t)
CLAB_SAME_SIZE(nvmlMemory_t)
CLAB_SAME_SIZE(nvmlPciInfo_t)

#define CLAB_SAME_OFFSET(type, field) \
  static_assert(offsetof(g::type, field) == offsetof(::type, field), "offsetof(" #type ", " #field ") differs");
CLAB_SAME_OFFSET(nvmlMemory_t, total)
CLAB_SAME_OFFSET(nvmlMemory_t, free)
CLAB_SAME_OFFSET(nvmlMemory_t, used)
CLAB_SAME_OFFSET(nvmlPciInfo_t, busIdLegacy)
CLAB_SAME_OFFSET(nvmlPciInfo_t, domain)
CLAB_SAME_OFFSET(nvmlPciInfo_t, bus)
CLAB_SAME_OFFSET(nvmlPciInfo_t, device)
CLAB_SAME_OFFSET(nvmlPciInfo_t, busId)
CLAB_SAME_SIZE(cudaIpcMemHandle_t)
static_assert(g::kCudaIpcHandleBytes == CUDA_IPC_HANDLE_SIZE, "CUDA_IPC_HANDLE_SIZE differs");
static_assert(g::kCudaIpcMemLazyEnablePeerAccess == cudaIpcMemLazyEnablePeerAccess, "cudaIpcMemLazyEnablePeerAccess differs");
// NCCL 2.28 writes the magic into NCCL_CONFIG_INITIALIZER as a literal; later nccl.h names it NCCL_API_MAGIC.
constexpr ncclConfig_t kRealConfigDefaults = NCCL_CONFIG_INITIALIZER;
static_assert(g::kNcclApiMagic == kRealConfigDefaults.magic, "ncclConfig_t's magic (NCCL_CONFIG_INITIALIZER) differs");
static_assert(g::kNcclConfigUndefInt == NCCL_CONFIG_UNDEF_INT, "NCCL_CONFIG_UNDEF_INT differs");
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
static_assert(g::kNcclCtaPolicyZero == NCCL_CTA_POLICY_ZERO, "NCCL_CTA_POLICY_ZERO differs");
static_assert(g::kNcclCtaPolicyEfficiency == NCCL_CTA_POLICY_EFFICIENCY, "NCCL_CTA_POLICY_EFFICIENCY differs");
static_assert(g::kNcclWinCollSymmetric == NCCL_WIN_COLL_SYMMETRIC, "NCCL_WIN_COLL_SYMMETRIC differs");
// Our ncclConfig_t is a prefix of the real one, field for field.
CLAB_SAME_OFFSET(ncclConfig_t, magic)
CLAB_SAME_OFFSET(ncclConfig_t, version)
CLAB_SAME_OFFSET(ncclConfig_t, minCTAs)
CLAB_SAME_OFFSET(ncclConfig_t, maxCTAs)
CLAB_SAME_OFFSET(ncclConfig_t, netName)
CLAB_SAME_OFFSET(ncclConfig_t, commName)
CLAB_SAME_OFFSET(ncclConfig_t, CTAPolicy)
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 31, 0)
// Our ncclCollConfig_t is NCCL 2.31's, field for field; later ones append to it.
CLAB_SAME_OFFSET(ncclCollConfig_t, magic)
CLAB_SAME_OFFSET(ncclCollConfig_t, version)
CLAB_SAME_OFFSET(ncclCollConfig_t, ext)
CLAB_SAME_OFFSET(ncclCollConfig_t, minCTAs)
CLAB_SAME_OFFSET(ncclCollConfig_t, maxCTAs)
CLAB_SAME_OFFSET(ncclCollConfig_t, nvlsCTAs)
CLAB_SAME_OFFSET(ncclCollConfig_t, cgaClusterSize)
CLAB_SAME_OFFSET(ncclCollConfig_t, algSelection)
CLAB_SAME_OFFSET(ncclCollConfig_t, forceAlgSelection)
CLAB_SAME_OFFSET(ncclCollConfig_t, CTAPolicy)
CLAB_SAME_OFFSET(ncclCollConfig_t, userProfilerTag)
static_assert(sizeof(g::ncclCollConfig_t) <= sizeof(::ncclCollConfig_t), "our ncclCollConfig_t is no prefix of NCCL's");
static_assert(sizeof(g::ncclCollConfig_t) == offsetof(::ncclCollConfig_t, userProfilerTag) + sizeof(uint64_t),
              "our ncclCollConfig_t ends after another field than NCCL 2.31's userProfilerTag");
#endif

int main() { return 0; }
