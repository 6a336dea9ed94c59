// Element types and reduction operators: names, sizes, float16/bfloat16/float8 conversion and the
// reduction kernel. The rounding matches src/shared/dtypes.ts bit for bit: each reduction step is
// evaluated in the element type (half types: both operands to float32, compute, round back with
// round-to-nearest-even; float8 types: computed in float16 as NCCL does, then rounded to float8),
// integers wrap modulo 2^bits.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "common/data_program.h"

namespace clab {

// Floats first (dtype_is_float), the order of kDtypeNames.
enum class Dtype : uint8_t { Float32, Float64, Float16, BFloat16, Float8E4m3, Float8E5m2, Int8, Uint8, Int32, Uint32, Int64, Uint64 };
enum class Redop : uint8_t { Sum, Prod, Min, Max, Avg };
// data_program.h numbers the types and redops it handles the same way (its code also runs on the GPU).
static_assert(static_cast<int>(Dtype::Float32) == data::kF32 && static_cast<int>(Dtype::Float64) == data::kF64 &&
              static_cast<int>(Dtype::Float16) == data::kF16 && static_cast<int>(Dtype::BFloat16) == data::kBF16 &&
              static_cast<int>(Dtype::Float8E4m3) == data::kF8E4M3 && static_cast<int>(Dtype::Float8E5m2) == data::kF8E5M2 &&
              static_cast<int>(Dtype::Int8) == data::kI8 && static_cast<int>(Dtype::Uint8) == data::kU8 &&
              static_cast<int>(Dtype::Int32) == data::kI32 && static_cast<int>(Dtype::Uint32) == data::kU32 &&
              static_cast<int>(Dtype::Int64) == data::kI64 && static_cast<int>(Dtype::Uint64) == data::kU64);
static_assert(static_cast<int>(Redop::Sum) == data::kSum && static_cast<int>(Redop::Prod) == data::kProd &&
              static_cast<int>(Redop::Min) == data::kMin && static_cast<int>(Redop::Max) == data::kMax &&
              static_cast<int>(Redop::Avg) == data::kAvg);

constexpr const char* kDtypeNames[] = {"float32", "float64", "float16", "bfloat16", "float8_e4m3", "float8_e5m2",
                                       "int8",    "uint8",   "int32",   "uint32",   "int64",       "uint64"};
constexpr size_t kDtypeSizes[] = {4, 8, 2, 2, 1, 1, 1, 1, 4, 4, 8, 8};
constexpr int kDtypeCount = sizeof(kDtypeNames) / sizeof(kDtypeNames[0]);
constexpr const char* kRedopNames[] = {"sum", "prod", "min", "max", "avg"};
constexpr const char* kDtypeList =
    "float32, float64, float16, bfloat16, float8_e4m3, float8_e5m2, int8, uint8, int32, uint32, int64, uint64";
constexpr const char* kRedopList = "sum, prod, min, max, avg";

inline const char* dtype_name(Dtype d) { return kDtypeNames[static_cast<int>(d)]; }
inline size_t dtype_size(Dtype d) { return kDtypeSizes[static_cast<int>(d)]; }
inline const char* redop_name(Redop r) { return kRedopNames[static_cast<int>(r)]; }
inline bool dtype_is_float(Dtype d) { return d <= Dtype::Float8E5m2; }

inline bool parse_dtype(const std::string& s, Dtype* out) {
  for (int i = 0; i < kDtypeCount; i++)
    if (s == kDtypeNames[i]) {
      *out = static_cast<Dtype>(i);
      return true;
    }
  return false;
}

inline bool parse_redop(const std::string& s, Redop* out) {
  for (int i = 0; i < 5; i++)
    if (s == kRedopNames[i]) {
      *out = static_cast<Redop>(i);
      return true;
    }
  return false;
}

inline uint32_t f32_bits(float f) { return data::f32_to_bits(f); }
inline float bits_f32(uint32_t u) { return data::bits_to_f32(u); }

/** float32 -> float16 bits, round-to-nearest-even; NaN -> quiet NaN, overflow -> Inf, subnormals exact. */
inline uint16_t f32_to_f16(float f) { return data::f16_from_f32(f); }
/** float16 bits -> float32 (exact). */
inline float f16_to_f32(uint16_t h) { return data::f16_to_f32_(h); }
/** float32 -> bfloat16 bits, round-to-nearest-even; NaN stays a quiet NaN. */
inline uint16_t f32_to_bf16(float f) { return data::bf16_from_f32(f); }
inline float bf16_to_f32(uint16_t h) { return data::bf16_to_f32_(h); }

/** float32 <-> float8 as CUDA converts (__NV_SATFINITE), data_program.h's conversions. */
inline uint8_t f32_to_e4m3(float f) { return data::f8_from_f32(data::kF8E4M3, f); }
inline uint8_t f32_to_e5m2(float f) { return data::f8_from_f32(data::kF8E5M2, f); }
inline float e4m3_to_f32(uint8_t c) { return static_cast<float>(data::f8_to_value(data::kF8E4M3, c)); }
inline float e5m2_to_f32(uint8_t c) { return static_cast<float>(data::f8_to_value(data::kF8E5M2, c)); }

/**
 * out[i] = fold of in[0][i] .. in[n-1][i] in that order (acc = in[0]; acc = op(acc, in[p])), divided
 * by n for avg. `out` may alias in[0] but no other input. n >= 1.
 */
void reduce_n(Dtype dtype, Redop redop, void* out, const void* const* in, int n, size_t count);

}  // namespace clab
