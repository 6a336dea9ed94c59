// The data kernels (data_program.h on the GPU): compiled to PTX by nvcc when the addon is built,
// embedded in the addon and loaded with the driver API at run time (data_device.cc), so that the
// user's machine needs no compiler. Each thread walks the buffer with a grid stride.
//
// float32, the type of most scenarios, has kernels of its own (clab_fill_f32, clab_check_f32),
// compiled for it alone: data_program.h's switches on the element type fold away there (its
// functions are inlined with the type a constant), and what is left is the element's arithmetic,
// in double as the TypeScript reference computes it. The other types share kernels that read the
// type at each element: a kernel of their own for each, tried, made the PTX three times as long,
// and the driver's compiling of it on a machine's first run (it keeps the result for later ones)
// 1.3–1.5 s instead of 0.2–0.4 (bench/gpu/README.md has the figures).
#include "common/data_program.h"

using namespace clab::data;

namespace {

/** Not an element type: the loop that reads the type from its Fill or Expect at each element. */
constexpr uint8_t kAnyDtype = 0xff;

/** Fills this thread's elements (a grid stride apart) of a buffer of n elements of type D (kAnyDtype: f.dtype). */
template <uint8_t D>
__device__ __forceinline__ void fill_as(uint8_t* dst, unsigned long long n, const Fill& f) {
  const uint8_t dtype = D == kAnyDtype ? f.dtype : D;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    write_bits(dst, dtype, i, store(dtype, pattern_value(f.pattern, dtype, f.rank, i)));
}

/** Counts this thread's wrong elements of type D (kAnyDtype: e.dtype) and finds the first (~0 when none). */
template <uint8_t D>
__device__ __forceinline__ void check_as(const uint8_t* out, unsigned long long n, const Expect& e, unsigned long long& wrong,
                                         unsigned long long& first) {
  const uint8_t dtype = D == kAnyDtype ? e.dtype : D;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (element_matches(dtype, expected_bits(e, dtype, segment_of(e, i), i), read_bits(out, dtype, i))) continue;
    if (wrong++ == 0) first = i;  // a thread's indices rise
  }
}

/** The warp's counts summed into *result, and the lowest first index kept. */
__device__ __forceinline__ void add_result(unsigned long long wrong, unsigned long long first, CheckResult* result) {
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

}  // namespace

extern "C" __global__ void clab_fill(uint8_t* dst, unsigned long long n, Fill f) { fill_as<kAnyDtype>(dst, n, f); }
extern "C" __global__ void clab_fill_f32(uint8_t* dst, unsigned long long n, Fill f) { fill_as<kF32>(dst, n, f); }

extern "C" __global__ void clab_check(const uint8_t* out, unsigned long long n, Expect e, CheckResult* result) {
  unsigned long long wrong = 0, first = ~0ull;
  check_as<kAnyDtype>(out, n, e, wrong, first);
  add_result(wrong, first, result);
}

extern "C" __global__ void clab_check_f32(const uint8_t* out, unsigned long long n, Expect e, CheckResult* result) {
  unsigned long long wrong = 0, first = ~0ull;
  check_as<kF32>(out, n, e, wrong, first);
  add_result(wrong, first, result);
}

// The GPU's %globaltimer (ns), which NCCL's kernels stamp their channels with: read once between
// two host clock readings, it maps that timer onto the host's clock (gpu_clock.cc).
extern "C" __global__ void clab_globaltimer(unsigned long long* out) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  *out = t;
}
