// The compute stand-in: C[m×n] = A[m×k] · B[k×n] on buffers the backend owns.
//
// Operands are deterministic so that callers can check C:
//   A[i][p] = ((i + p) % 7) - 3        B[p][j] = ((p * j) % 5) - 2      (row-major, stored in dtype)
// The math is float32 (float64 for dtype float64): half types are converted to float32 before
// the multiply and C is rounded back to the dtype (round-to-nearest-even). Sums over p run in
// increasing p, so with these small integer operands C is exact whenever |C| < 2^24.
// Loop order i-p-j with p/j tiling, no BLAS.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dtype.h"

namespace clab {

/** Throws CLAB_INVALID_ARGUMENT for unsupported dtypes (integers) or absurd sizes. */
void validate_gemm(const std::string& path, Dtype dtype, uint64_t m, uint64_t n, uint64_t k);

/** The operands above as stored in `dtype`: a holds A (m×k), b holds B (k×n), row-major. */
void fill_gemm_operands(Dtype dtype, uint64_t m, uint64_t n, uint64_t k, std::vector<uint8_t>& a, std::vector<uint8_t>& b);

/** Owns A, B and C for one stream; reallocates and refills A/B when the shape or dtype changes. */
class GemmWorkspace {
 public:
  void run(Dtype dtype, uint64_t m, uint64_t n, uint64_t k);
  /** C as stored (m×n elements of the dtype) after the last run. */
  const std::vector<uint8_t>& c() const { return c_; }

 private:
  void prepare(Dtype dtype, uint64_t m, uint64_t n, uint64_t k);

  Dtype dtype_ = Dtype::Float32;
  uint64_t m_ = 0, n_ = 0, k_ = 0;
  std::vector<uint8_t> a_, b_, c_;       // as stored in dtype
  std::vector<float> af_, bf_, cf_;      // float32 working copies for half types
};

}  // namespace clab
