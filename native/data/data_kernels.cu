// The data kernels (data_program.h on the GPU): compiled to PTX by nvcc when the addon is built,
// embedded in the addon and loaded with the driver API at run time (data_device.cc), so that the
// user's machine needs no compiler. Each thread walks the buffer with a grid stride.
#include "common/data_program.h"

using namespace clab::data;

extern "C" __global__ void clab_fill(uint8_t* dst, unsigned long long n, Fill f) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    write_bits(dst, f.dtype, i, store(f.dtype, pattern_value(f.pattern, f.dtype, f.rank, i)));
}

extern "C" __global__ void clab_check(const uint8_t* out, unsigned long long n, Expect e, CheckResult* result) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned long long wrong = 0, first = ~0ull;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (element_matches(e.dtype, expected_bits(e, segment_of(e, i), i), read_bits(out, e.dtype, i))) continue;
    if (wrong++ == 0) first = i;  // a thread's indices rise
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    wrong += __shfl_down_sync(0xffffffffu, wrong, offset);
    const unsigned long long other = __shfl_down_sync(0xffffffffu, first, offset);
    if (other < first) first = other;
  }
  if ((threadIdx.x & 31) == 0 && wrong) {
    atomicAdd(&result->wrong, wrong);
    atomicMin(&result->first, first);
  }
}

// The GPU's %globaltimer (ns), which NCCL's kernels stamp their channels with: read once between
// two host clock readings, it maps that timer onto the host's clock (gpu_clock.cc).
extern "C" __global__ void clab_globaltimer(unsigned long long* out) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  *out = t;
}
