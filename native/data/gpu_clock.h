// Where the GPU's %globaltimer stands against the host's CLOCK_MONOTONIC. NCCL's profiler stamps
// each channel's kernel with %globaltimer (ns, but neither CUDA event time nor the host's clock);
// one reading of it taken between two host readings maps it onto the lab's clock.
#pragma once

#include <cstdint>

#include "gpu/gpu_loader.h"

namespace clab {

struct GpuClockSample {
  uint64_t gpu_ns;    // %globaltimer as a kernel read it
  uint64_t host_ns;   // CLOCK_MONOTONIC at the middle of the host readings around that kernel
  uint64_t error_ns;  // half their distance: the kernel's reading lies within host_ns ± error_ns
};

/**
 * On `device` (made current): `samples` kernels each read %globaltimer between two host readings
 * (launch … synchronize); the one with the closest readings is kept. Throws ClabError naming
 * `rank` where the data kernels cannot run (their PTX, the driver).
 */
GpuClockSample calibrate_gpu_clock(const gpu::CudaRuntime& rt, int device, int rank, int samples);

}  // namespace clab
