#include "common/gemm.h"

#include <algorithm>
#include <cstring>

#include "common/errors.h"

namespace clab {

namespace {

constexpr uint64_t kMaxElements = 1ull << 28;   // per matrix (1 GiB of float32)
constexpr uint64_t kTileP = 128, kTileJ = 512;  // B tile of 256 KiB (float32) stays in L2

// C = A·B for row-major float/double, i-p-j order tiled over p and j; p increases per element.
template <class T>
void matmul(const T* __restrict a, const T* __restrict b, T* __restrict c, uint64_t m, uint64_t n, uint64_t k) {
  std::fill(c, c + m * n, T(0));
  for (uint64_t j0 = 0; j0 < n; j0 += kTileJ) {
    const uint64_t j1 = std::min(n, j0 + kTileJ);
    for (uint64_t p0 = 0; p0 < k; p0 += kTileP) {
      const uint64_t p1 = std::min(k, p0 + kTileP);
      for (uint64_t i = 0; i < m; i++) {
        T* __restrict ci = c + i * n;
        for (uint64_t p = p0; p < p1; p++) {
          const T aip = a[i * k + p];
          const T* __restrict bp = b + p * n;
          for (uint64_t j = j0; j < j1; j++) ci[j] += aip * bp[j];
        }
      }
    }
  }
}

double a_value(uint64_t i, uint64_t p) { return static_cast<double>(static_cast<int>((i + p) % 7) - 3); }
double b_value(uint64_t p, uint64_t j) { return static_cast<double>(static_cast<int>((p * j) % 5) - 2); }

void store(Dtype d, uint8_t* dst, uint64_t idx, double v) {
  switch (d) {
    case Dtype::Float32: {
      const float f = static_cast<float>(v);
      std::memcpy(dst + idx * 4, &f, 4);
      break;
    }
    case Dtype::Float64: std::memcpy(dst + idx * 8, &v, 8); break;
    case Dtype::Float16: {
      const uint16_t h = f32_to_f16(static_cast<float>(v));
      std::memcpy(dst + idx * 2, &h, 2);
      break;
    }
    case Dtype::BFloat16: {
      const uint16_t h = f32_to_bf16(static_cast<float>(v));
      std::memcpy(dst + idx * 2, &h, 2);
      break;
    }
    default: break;
  }
}

void to_f32(Dtype d, const uint8_t* src, float* dst, uint64_t count) {
  const auto* h = reinterpret_cast<const uint16_t*>(src);
  if (d == Dtype::Float16)
    for (uint64_t i = 0; i < count; i++) dst[i] = f16_to_f32(h[i]);
  else
    for (uint64_t i = 0; i < count; i++) dst[i] = bf16_to_f32(h[i]);
}

void from_f32(Dtype d, const float* src, uint8_t* dst, uint64_t count) {
  auto* h = reinterpret_cast<uint16_t*>(dst);
  if (d == Dtype::Float16)
    for (uint64_t i = 0; i < count; i++) h[i] = f32_to_f16(src[i]);
  else
    for (uint64_t i = 0; i < count; i++) h[i] = f32_to_bf16(src[i]);
}

}  // namespace

void validate_gemm(const std::string& path, Dtype dtype, uint64_t m, uint64_t n, uint64_t k) {
  if (!dtype_is_float(dtype))
    throw_invalid(path + ".dtype " + dtype_name(dtype) + " is not supported by gemm (float32, float64, float16, bfloat16)");
  const struct {
    const char* name;
    uint64_t v;
  } dims[] = {{"m", m}, {"n", n}, {"k", k}};
  for (const auto& d : dims)
    if (d.v == 0) throw_invalid(path + "." + d.name + " must be a positive integer");
  const struct {
    const char* name;
    uint64_t r, c;
  } mats[] = {{"A (m×k)", m, k}, {"B (k×n)", k, n}, {"C (m×n)", m, n}};
  for (const auto& mt : mats)
    if (mt.r > kMaxElements || mt.c > kMaxElements || mt.r * mt.c > kMaxElements)
      throw_invalid(path + ": gemm matrix " + mt.name + " has more than 2^28 elements");
}

void fill_gemm_operand_heads(Dtype dtype, uint64_t m, uint64_t n, uint64_t k, std::vector<uint8_t>& a, std::vector<uint8_t>& b) {
  const size_t e = dtype_size(dtype);
  const uint64_t ra = std::min(m, kGemmRowsA), rb = std::min(k, kGemmRowsB);
  a.resize(ra * k * e);
  b.resize(rb * n * e);
  for (uint64_t i = 0; i < ra; i++)
    for (uint64_t p = 0; p < k; p++) store(dtype, a.data(), i * k + p, a_value(i, p));
  for (uint64_t p = 0; p < rb; p++)
    for (uint64_t j = 0; j < n; j++) store(dtype, b.data(), p * n + j, b_value(p, j));
}

void fill_gemm_operands(Dtype dtype, uint64_t m, uint64_t n, uint64_t k, std::vector<uint8_t>& a, std::vector<uint8_t>& b) {
  const size_t e = dtype_size(dtype);
  // Each distinct row is made once and copied (an 8192 × 4096 half operand took a few hundred ms
  // element by element).
  fill_gemm_operand_heads(dtype, m, n, k, a, b);
  a.resize(m * k * e);
  b.resize(k * n * e);
  repeat_gemm_rows(kGemmRowsA, m, [&](uint64_t at, uint64_t n_rows) { std::memcpy(a.data() + at * k * e, a.data(), n_rows * k * e); });
  repeat_gemm_rows(kGemmRowsB, k, [&](uint64_t at, uint64_t n_rows) { std::memcpy(b.data() + at * n * e, b.data(), n_rows * n * e); });
}

void GemmWorkspace::prepare(Dtype dtype, uint64_t m, uint64_t n, uint64_t k) {
  if (dtype == dtype_ && m == m_ && n == n_ && k == k_ && !c_.empty()) return;
  dtype_ = dtype;
  m_ = m;
  n_ = n;
  k_ = k;
  fill_gemm_operands(dtype, m, n, k, a_, b_);
  c_.assign(m * n * dtype_size(dtype), 0);
  const bool half = dtype == Dtype::Float16 || dtype == Dtype::BFloat16;
  af_.assign(half ? m * k : 0, 0.f);
  bf_.assign(half ? k * n : 0, 0.f);
  cf_.assign(half ? m * n : 0, 0.f);
}

void GemmWorkspace::run(Dtype dtype, uint64_t m, uint64_t n, uint64_t k) {
  prepare(dtype, m, n, k);
  switch (dtype) {
    case Dtype::Float32:
      matmul(reinterpret_cast<const float*>(a_.data()), reinterpret_cast<const float*>(b_.data()), reinterpret_cast<float*>(c_.data()), m,
             n, k);
      break;
    case Dtype::Float64:
      matmul(reinterpret_cast<const double*>(a_.data()), reinterpret_cast<const double*>(b_.data()), reinterpret_cast<double*>(c_.data()),
             m, n, k);
      break;
    default:  // float16 / bfloat16: through float32 every run, like a GPU kernel reading half inputs
      to_f32(dtype, a_.data(), af_.data(), m * k);
      to_f32(dtype, b_.data(), bf_.data(), k * n);
      matmul(af_.data(), bf_.data(), cf_.data(), m, n, k);
      from_f32(dtype, cf_.data(), c_.data(), m * n);
      break;
  }
}

}  // namespace clab
