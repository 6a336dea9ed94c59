// The data kernels on a GPU (data_kernels.cu as embedded PTX, loaded once per device through the
// driver API): fill a buffer from a pattern, check one against a program. No Node-API.
#pragma once

#include <string>

#include "common/data_program.h"
#include "gpu/gpu_loader.h"

namespace clab {

/** Whether this addon carries the data kernels (unless built with -DCLAB_DATA_KERNELS=OFF). */
bool data_kernels_built_in();

class DataKernels {
 public:
  /**
   * The kernels in the current context of `device` (the calling thread's current device), loaded
   * on first use; nullptr where they cannot be (no PTX built in, no driver, the driver refuses the
   * PTX), with *why saying so.
   */
  static const DataKernels* on_device(int device, std::string* why);

  /** Enqueues the fill of `n` elements at `dst` on `stream`. Throws ClabError naming `rank`. */
  void fill(gpu::cudaStream_t stream, uint8_t* dst, uint64_t n, const data::Fill& f, int rank) const;
  /**
   * Enqueues the check of `n` elements at `out` against `e` (its segments and terms in device
   * memory) adding into `*result` (device memory, set to {0, ~0} before).
   */
  void check(gpu::cudaStream_t stream, const uint8_t* out, uint64_t n, const data::Expect& e, data::CheckResult* result, int rank) const;
  /** Enqueues one thread writing the GPU's %globaltimer (ns) to `*out` (device memory). */
  void globaltimer(gpu::cudaStream_t stream, unsigned long long* out, int rank) const;

 private:
  void launch(gpu::CUfunction f, gpu::cudaStream_t stream, uint64_t n, void** args, const char* what, int rank) const;
  const gpu::CudaDriver* driver_ = nullptr;
  // float32's own fill and check (data_kernels.cu), and those of every other type.
  gpu::CUfunction fill_ = nullptr, check_ = nullptr, fill_f32_ = nullptr, check_f32_ = nullptr, globaltimer_ = nullptr;
};

}  // namespace clab
