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

#include "common/dtype.h"

namespace clab {

/** Throws CLAB_INVALID_ARGUMENT for unsupported dtypes (integers) or absurd sizes. */
void validate_gemm(const std::string& path, Dtype dtype, uint64_t m, uint64_t n, uint64_t k);

/** The operands above as stored in `dtype`: a holds A (m×k), b holds B (k×n), row-major. */
void fill_gemm_operands(Dtype dtype, uint64_t m, uint64_t n, uint64_t k, std::vector<uint8_t>& a, std::vector<uint8_t>& b);

/** A's rows repeat every 7 (row i is row i mod 7), B's every 5: the rest of each is copies. */
constexpr uint64_t kGemmRowsA = 7, kGemmRowsB = 5;
/**
 * The first min(m, 7) rows of A (m×k) in `a` and the first min(k, 5) rows of B (k×n) in `b`, as
 * stored in `dtype`: the operands' distinct rows, for a caller that repeats them where they live.
 */
void fill_gemm_operand_heads(Dtype dtype, uint64_t m, uint64_t n, uint64_t k, std::vector<uint8_t>& a, std::vector<uint8_t>& b);

/**
 * Fills an operand of `rows` rows whose first `head` rows (its period) are in place, by doubling
 * copies: `copy(at, n)` copies rows [0, n) to [at, at + n). Every block copied starts at a
 * multiple of the period, so row i ends up as row i mod head. The host (fill_gemm_operands) and
 * the GPU (gpu_gemm.cc) fill theirs with it.
 */
template <class Copy>
void repeat_gemm_rows(uint64_t head, uint64_t rows, Copy copy) {
  for (uint64_t have = head < rows ? head : rows; have < rows;) {
    const uint64_t more = have < rows - have ? have : rows - have;
    copy(have, more);
    have += more;
  }
}

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
  std::vector<uint8_t> a_, b_, c_;   // as stored in dtype
  std::vector<float> af_, bf_, cf_;  // float32 working copies for half types
};

}  // namespace clab
