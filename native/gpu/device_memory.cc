#include "gpu/device_memory.h"

#include <cstdio>

#include "common/errors.h"

namespace clab {

namespace {

// Left free for what NCCL and cuBLAS allocate by themselves (new connections, workspaces).
constexpr uint64_t kReserveBytes = 256ull << 20;

std::string human_bytes(uint64_t b) {
  char buf[32];
  if (b >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(b) / (1ull << 30));
  else
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1ull << 20));
  return buf;
}

}  // namespace

DeviceBlock& DeviceBlock::operator=(DeviceBlock&& o) noexcept {
  if (this != &o) {
    if (owner_) owner_->release(ptr_);
    owner_ = o.owner_;
    ptr_ = o.ptr_;
    o.owner_ = nullptr;
    o.ptr_ = nullptr;
  }
  return *this;
}

DeviceBlock::~DeviceBlock() {
  if (owner_) owner_->release(ptr_);
}

DeviceBlock DeviceMemory::acquire(uint64_t bytes, const std::string& what, Kind kind) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool registering = !comms_.empty();
  const bool shareable = kind == Kind::Shareable;
  const bool nccl_alloc = kind == Kind::Window || (kind == Kind::Any && registering);
  if (nccl_alloc && (!nccl_ || !nccl_->ncclMemAlloc || !nccl_->ncclMemFree))
    throw ClabError("CLAB_UNSUPPORTED", "symmetric windows need buffers from ncclMemAlloc (NCCL 2.19 or later); " +
                                            (nccl_ ? nccl_->library : std::string("no NCCL")) + " has not got it");
  // The smallest idle block that fits without wasting more than it holds, from where the kind asks.
  const auto fits = [&](const Block& b) {
    if (shareable) return !b.nccl_alloc;
    if (kind == Kind::Window) return b.nccl_alloc;
    return registering || !b.nccl_alloc;
  };
  Block* best = nullptr;
  for (Block& b : blocks_)
    if (!b.lent && fits(b) && b.bytes >= bytes && b.bytes <= 2 * bytes + (1u << 20) && (!best || b.bytes < best->bytes)) best = &b;
  if (best) {
    best->lent = true;
    return DeviceBlock(this, best->ptr);
  }
  size_t free_b = 0, total_b = 0;
  gpu::cudaError_t e = rt_.cudaMemGetInfo(&free_b, &total_b);
  if (e == gpu::cudaSuccess && bytes + kReserveBytes > free_b) {
    // cudaFree waits for the device: only when memory is short.
    free_idle_locked();
    e = rt_.cudaMemGetInfo(&free_b, &total_b);
  }
  if (e != gpu::cudaSuccess)
    throw ClabError(rt_.cudaGetErrorName(e),
                    "cudaMemGetInfo failed on GPU " + std::to_string(device_) + ": " + gpu::cuda_error_text(rt_, e));
  if (bytes + kReserveBytes > free_b)
    throw ClabError("CLAB_OUT_OF_MEMORY", "cannot allocate " + std::to_string(bytes) + " bytes (" + human_bytes(bytes) +
                                              ") of GPU memory for " + what + " on GPU " + std::to_string(device_) + " (rank " +
                                              std::to_string(rank_) + "): " + std::to_string(free_b) + " bytes (" + human_bytes(free_b) +
                                              ") free of " + human_bytes(total_b) + ", " + human_bytes(kReserveBytes) +
                                              " of which stay for NCCL and cuBLAS");
  void* p = nullptr;
  const std::string where = " bytes for " + what + " failed on GPU " + std::to_string(device_) + " (rank " + std::to_string(rank_) + "): ";
  if (nccl_alloc) {  // a window's, or registering with live communicators
    const gpu::ncclResult_t r = nccl_->ncclMemAlloc(&p, bytes);
    if (r != gpu::ncclSuccess)
      throw ClabError(r == gpu::ncclSystemError || r == gpu::ncclUnhandledCudaError ? "CLAB_OUT_OF_MEMORY" : "CLAB_NCCL_ERROR",
                      "ncclMemAlloc of " + std::to_string(bytes) + where + nccl_->ncclGetErrorString(r));
    Block block{static_cast<uint8_t*>(p), bytes, true, true, {}};
    for (gpu::ncclComm_t comm : comms_) {
      void* handle = nullptr;
      const gpu::ncclResult_t reg = nccl_->ncclCommRegister(comm, p, bytes, &handle);
      if (reg != gpu::ncclSuccess) {
        free_block(block);
        throw ClabError("CLAB_NCCL_ERROR", "ncclCommRegister of " + std::to_string(bytes) + where + nccl_->ncclGetErrorString(reg));
      }
      block.handles.push_back(handle);
    }
    blocks_.push_back(block);
    return DeviceBlock(this, static_cast<uint8_t*>(p));
  }
  e = rt_.cudaMalloc(&p, bytes);
  if (e != gpu::cudaSuccess) {
    rt_.cudaGetLastError();  // clear the sticky-free error state of this thread
    throw ClabError(e == gpu::cudaErrorMemoryAllocation ? "CLAB_OUT_OF_MEMORY" : rt_.cudaGetErrorName(e),
                    "cudaMalloc of " + std::to_string(bytes) + where + gpu::cuda_error_text(rt_, e));
  }
  blocks_.push_back({static_cast<uint8_t*>(p), bytes, true, false, {}});
  return DeviceBlock(this, static_cast<uint8_t*>(p));
}

void DeviceMemory::check_registration(const gpu::NcclLibrary& nccl) {
  if (!nccl.ncclMemAlloc || !nccl.ncclMemFree || !nccl.ncclCommRegister || !nccl.ncclCommDeregister)
    throw ClabError("CLAB_UNSUPPORTED",
                    "registerBuffers needs NCCL 2.19 or later (ncclMemAlloc, ncclCommRegister); " + nccl.library + " has not got them");
}

void DeviceMemory::use_nccl(const gpu::NcclLibrary& nccl) {
  std::lock_guard<std::mutex> lock(mu_);
  nccl_ = &nccl;
}

void DeviceMemory::register_with(const gpu::NcclLibrary& nccl, const std::vector<gpu::ncclComm_t>& comms) {
  check_registration(nccl);
  std::lock_guard<std::mutex> lock(mu_);
  nccl_ = &nccl;
  comms_ = comms;
}

void DeviceMemory::forget_comm() {
  std::lock_guard<std::mutex> lock(mu_);
  comms_.clear();
  for (Block& b : blocks_) b.handles.clear();
}

void DeviceMemory::free_block(const Block& b) {
  for (size_t i = 0; i < b.handles.size() && i < comms_.size(); i++)
    if (b.handles[i]) nccl_->ncclCommDeregister(comms_[i], b.handles[i]);
  if (b.nccl_alloc) nccl_->ncclMemFree(b.ptr);
  else
    rt_.cudaFree(b.ptr);
}

void DeviceMemory::release(uint8_t* ptr) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Block& b : blocks_)
    if (b.ptr == ptr) b.lent = false;
}

void DeviceMemory::free_idle_locked() {
  std::vector<Block> kept;
  for (const Block& b : blocks_) {
    if (b.lent) kept.push_back(b);
    else
      free_block(b);
  }
  blocks_.swap(kept);
}

void DeviceMemory::free_all() {
  std::lock_guard<std::mutex> lock(mu_);
  free_idle_locked();
}

}  // namespace clab
