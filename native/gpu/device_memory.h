// Device buffers of one nccl communicator: cudaMalloc'd on demand, kept and reused by size while
// the communicator lives (a sweep reuses its buffers), freed at close. A request that the GPU
// cannot hold is refused up front, with the bytes asked and the bytes free. With registration on
// (a scenario's registerBuffers), blocks come from ncclMemAlloc and are registered with the
// communicator (ncclCommRegister), so that NCCL moves data straight between them (zero-copy). A
// symmetric window's block (Kind::Window) comes from ncclMemAlloc too, which NCCL requires of one.
// No Node-API here.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "gpu/gpu_loader.h"

namespace clab {

class DeviceMemory;

/** A block lent by DeviceMemory; goes back to the cache when destroyed. */
class DeviceBlock {
 public:
  DeviceBlock() = default;
  DeviceBlock(DeviceMemory* owner, uint8_t* ptr) : owner_(owner), ptr_(ptr) {}
  DeviceBlock(DeviceBlock&& o) noexcept : owner_(o.owner_), ptr_(o.ptr_) {
    o.owner_ = nullptr;
    o.ptr_ = nullptr;
  }
  DeviceBlock& operator=(DeviceBlock&& o) noexcept;
  DeviceBlock(const DeviceBlock&) = delete;
  DeviceBlock& operator=(const DeviceBlock&) = delete;
  ~DeviceBlock();
  uint8_t* get() const { return ptr_; }

 private:
  DeviceMemory* owner_ = nullptr;
  uint8_t* ptr_ = nullptr;
};

class DeviceMemory {
 public:
  /**
   * Where a block comes from. Any: cudaMalloc, or while registering ncclMemAlloc registered with the
   * communicators; Shareable: cudaMalloc, which another process can map (cudaIpcGetMemHandle does not
   * take ncclMemAlloc's memory); Window: ncclMemAlloc (registered too while registering), which NCCL
   * registers as a symmetric window. Outside registration, Any never lends a Window block, nor
   * Window an Any one.
   */
  enum class Kind { Any, Shareable, Window };

  DeviceMemory(const gpu::CudaRuntime& rt, int device, int rank) : rt_(rt), device_(device), rank_(rank) {}
  ~DeviceMemory() { free_all(); }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  /**
   * A block of at least `bytes` (> 0) on this communicator's device, the calling thread's current
   * device. Throws CLAB_OUT_OF_MEMORY naming `what`, the rank, the bytes asked and the bytes free.
   */
  DeviceBlock acquire(uint64_t bytes, const std::string& what, Kind kind = Kind::Any);
  /** The library Window blocks come from (ncclMemAlloc, NCCL 2.19): set at join. */
  void use_nccl(const gpu::NcclLibrary& nccl);
  /** Frees every block; none may be lent out. */
  void free_all();
  /**
   * From now on, blocks are allocated with ncclMemAlloc and registered with each of `comms` (the
   * run's communicator and those split from it; blocks already held stay as they are). Throws
   * CLAB_UNSUPPORTED when the library has no registration (< 2.19).
   */
  void register_with(const gpu::NcclLibrary& nccl, const std::vector<gpu::ncclComm_t>& comms);
  /** Throws CLAB_UNSUPPORTED, naming the library, when it cannot register buffers (NCCL < 2.19). */
  static void check_registration(const gpu::NcclLibrary& nccl);
  /** The communicators are destroyed, and their registrations with them: blocks are only freed from now on. */
  void forget_comm();

 private:
  friend class DeviceBlock;
  void release(uint8_t* ptr);
  void free_idle_locked();

  struct Block {
    uint8_t* ptr;
    uint64_t bytes;
    bool lent;
    bool nccl_alloc = false;     // from ncclMemAlloc: freed with ncclMemFree
    std::vector<void*> handles;  // ncclCommRegister's handle with each of comms_, while they live
  };
  void free_block(const Block& b);
  const gpu::CudaRuntime& rt_;
  const gpu::NcclLibrary* nccl_ = nullptr;
  std::vector<gpu::ncclComm_t> comms_;  // set while blocks are registered with them (register_with … forget_comm)
  const int device_, rank_;
  std::mutex mu_;
  std::vector<Block> blocks_;
};

}  // namespace clab
