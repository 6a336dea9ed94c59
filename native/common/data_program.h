// Data made and checked where the backend computes (the GPU on nccl, host memory on cpu): a
// rank's input as a pure function of (rank, index) and what an output element must hold, for
// kernels (data_kernels.cu, compiled to PTX) and host loops (data_host.cc) from this one header.
// It mirrors src/shared/patterns.ts (fill), src/shared/reduce.ts (reduction, each step stored in
// the element type) and src/shared/check.ts (tolerance) bit for bit; src/shared/data-program.ts
// builds the programs. Every element type NCCL has: 64-bit integers reduce in integer arithmetic
// (BigInt there), float8 reductions round through float16 as NCCL computes them.
// No Node-API, no CUDA header, no standard library that device code lacks.
#pragma once

#include <stdint.h>

#ifdef __CUDACC__
#define CLAB_HD __host__ __device__ __forceinline__
#else
#include <cmath>
#include <cstring>
#define CLAB_HD inline
#endif

namespace clab {
namespace data {

// The element types this file handles: values of clab::Dtype (dtype.h), same numbering.
enum : uint8_t {
  kF32 = 0,
  kF64 = 1,
  kF16 = 2,
  kBF16 = 3,
  kF8E4M3 = 4,
  kF8E5M2 = 5,
  kI8 = 6,
  kU8 = 7,
  kI32 = 8,
  kU32 = 9,
  kI64 = 10,
  kU64 = 11
};
// clab::Redop's numbering.
enum : uint8_t { kSum = 0, kProd = 1, kMin = 2, kMax = 3, kAvg = 4 };

CLAB_HD bool supported_dtype(uint8_t d) { return d <= kU64; }
CLAB_HD int element_bytes(uint8_t d) {
  return (d == kF64 || d == kI64 || d == kU64) ? 8 : (d == kF32 || d == kI32 || d == kU32) ? 4 : (d == kF16 || d == kBF16) ? 2 : 1;
}
CLAB_HD bool is_float(uint8_t d) { return d <= kF8E5M2; }
CLAB_HD bool is_float8(uint8_t d) { return d == kF8E4M3 || d == kF8E5M2; }
CLAB_HD bool is_int64(uint8_t d) { return d == kI64 || d == kU64; }

/** A data pattern (patterns.ts) on every rank, in the order of operations patterns.ts uses. */
enum : uint8_t { kConstant = 0, kRank = 1, kArange = 2, kRandom = 3 };
struct Pattern {
  uint8_t kind;  // kConstant: a0; kRank: a1·rank + a0; kArange: (a0 + a1·rank) + b·i; kRandom: [min, max) (floats) or min..max (integers)
  uint32_t seed;
  double a0, a1, b;
  double min, max;
};

/** Fills one buffer: element i (i from 0) holds rank `rank`'s element i. */
struct Fill {
  Pattern pattern;
  uint8_t dtype;
  int32_t rank;
};

/** Elements [start, start + length) of an output: term t is element (from + j) of rank's input. */
struct Segment {
  uint64_t start, length;
  uint32_t first_term, terms;
};
struct Term {
  int32_t rank;
  uint64_t from;
};

/** What an output must hold: segments in order (starts rising), terms reduced by `redop` when several. */
struct Expect {
  Pattern pattern;
  uint8_t dtype, redop;
  uint32_t segments;
  const Segment* segment;  // `segments` of them
  const Term* term;
};

/** A check's result: the number of wrong elements and the lowest wrong index (~0 when none). */
struct CheckResult {
  unsigned long long wrong, first;
};

// Bit casts and the libm calls the program needs: CUDA's intrinsics on the device, the standard
// library on the host.
#ifdef __CUDA_ARCH__
CLAB_HD uint32_t f32_to_bits(float f) { return __float_as_uint(f); }
CLAB_HD float bits_to_f32(uint32_t u) { return __uint_as_float(u); }
CLAB_HD uint64_t f64_to_bits(double f) { return static_cast<uint64_t>(__double_as_longlong(f)); }
CLAB_HD double bits_to_f64(uint64_t u) { return __longlong_as_double(static_cast<long long>(u)); }
CLAB_HD double trunc_(double x) { return trunc(x); }
CLAB_HD double floor_(double x) { return floor(x); }
CLAB_HD double rint_(double x) { return rint(x); }  // to nearest, ties to even
CLAB_HD double ldexp_(double x, int e) { return ldexp(x, e); }
#else
template <class To, class From>
CLAB_HD To bit_cast_(From from) {
  static_assert(sizeof(To) == sizeof(From), "a bit cast keeps the size");
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}
CLAB_HD uint32_t f32_to_bits(float f) { return bit_cast_<uint32_t>(f); }
CLAB_HD float bits_to_f32(uint32_t u) { return bit_cast_<float>(u); }
CLAB_HD uint64_t f64_to_bits(double f) { return bit_cast_<uint64_t>(f); }
CLAB_HD double bits_to_f64(uint64_t u) { return bit_cast_<double>(u); }
CLAB_HD double trunc_(double x) { return std::trunc(x); }
CLAB_HD double floor_(double x) { return std::floor(x); }
CLAB_HD double rint_(double x) { return std::nearbyint(x); }  // to nearest, ties to even (the host's default rounding mode)
CLAB_HD double ldexp_(double x, int e) { return std::ldexp(x, e); }
#endif
CLAB_HD bool is_nan(double x) { return x != x; }
CLAB_HD double fabs_(double x) { return x < 0 ? -x : x; }

/** float32 → float16 bits, round-to-nearest-even (dtypes.ts' float32ToFloat16Bits). */
CLAB_HD uint16_t f16_from_f32(float f) {
  const uint32_t bits = f32_to_bits(f);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t exp = (bits >> 23) & 0xffu;
  uint32_t mant = bits & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - e;
    uint32_t half = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) half++;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) half++;
  return static_cast<uint16_t>(sign | half);
}

CLAB_HD float f16_to_f32_(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return bits_to_f32(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0) return bits_to_f32(sign);
    int e = -1;
    do {
      e++;
      mant <<= 1;
    } while ((mant & 0x400u) == 0);
    return bits_to_f32(sign | static_cast<uint32_t>(127 - 15 - e) << 23 | ((mant & 0x3ffu) << 13));
  }
  return bits_to_f32(sign | (exp + 127 - 15) << 23 | (mant << 13));
}

CLAB_HD uint16_t bf16_from_f32(float f) {
  const uint32_t bits = f32_to_bits(f);
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0) return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}
CLAB_HD float bf16_to_f32_(uint16_t h) { return bits_to_f32(static_cast<uint32_t>(h) << 16); }

/**
 * float32 -> float8 bits as CUDA converts (__NV_SATFINITE), dtypes.ts' float32ToFloat8Bits: round
 * to nearest even, beyond the largest finite value -> that value, NaN -> 0x7f. e4m3: 3/7/0x7e;
 * e5m2: 2/15/0x7b (mantissa bits, bias, largest finite code).
 */
CLAB_HD uint8_t f8_from_f32(uint8_t dtype, float f) {
  const int mant = dtype == kF8E4M3 ? 3 : 2, bias = dtype == kF8E4M3 ? 7 : 15, max_code = dtype == kF8E4M3 ? 0x7e : 0x7b;
  if (is_nan(f)) return 0x7f;
  const uint32_t bits = f32_to_bits(f);
  const uint8_t sign = static_cast<uint8_t>((bits >> 24) & 0x80u);
  const double a = fabs_(static_cast<double>(f));
  const int exp = static_cast<int>((bits >> 23) & 0xffu) - 127;
  if (a == 0 || exp < -bias - mant - 1) return sign;
  const int e = exp > 1 - bias ? exp : 1 - bias;
  const double n = rint_(a / ldexp_(1.0, e - mant));
  const double code = exp < 1 - bias ? n : static_cast<double>((e + bias) << mant) + n - (1 << mant);
  return static_cast<uint8_t>(sign | static_cast<uint8_t>(code < max_code ? code : max_code));
}

/** float8 bits -> its value (exact); e4m3: 0x7f/0xff NaN, no Inf; e5m2: IEEE-like. */
CLAB_HD double f8_to_value(uint8_t dtype, uint8_t c) {
  const bool e4m3 = dtype == kF8E4M3;
  const int mant = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15, exp_max = e4m3 ? 15 : 31;
  const double s = (c & 0x80u) ? -1.0 : 1.0;
  const int e = (c & 0x7f) >> mant;
  const int m = c & ((1 << mant) - 1);
  if (e4m3 && e == exp_max && m == (1 << mant) - 1) return bits_to_f64(0x7ff8000000000000ull);
  if (!e4m3 && e == exp_max) return m ? bits_to_f64(0x7ff8000000000000ull) : s * bits_to_f64(0x7ff0000000000000ull);
  if (e == 0) return s * ldexp_(static_cast<double>(m), 1 - bias - mant);
  return s * ldexp_(1.0 + static_cast<double>(m) / (1 << mant), e - bias);
}

/** A JS number stored into a BigInt64Array/BigUint64Array through BigInt(Math.trunc(x)): modulo 2^64 (0 where not finite). */
CLAB_HD uint64_t wrap_int64(double v) {
  if (!(v - v == 0)) return 0;
  const double t = trunc_(v);
  if (t >= -9223372036854775808.0 && t < 9223372036854775808.0) return static_cast<uint64_t>(static_cast<int64_t>(t));
  const double two64 = 18446744073709551616.0;
  return static_cast<uint64_t>(t - floor_(t / two64) * two64);
}

/** A JS number stored into an integer typed array of `bits` bits: truncated, modulo 2^bits (ToInt32 & co). */
CLAB_HD uint32_t wrap_int(double v) {
  if (!(v - v == 0)) return 0;  // NaN or ±Infinity
  double t = trunc_(v);
  const double two32 = 4294967296.0;
  t = t - floor_(t / two32) * two32;  // into [0, 2^32)
  return static_cast<uint32_t>(t);
}

/** The value `v` takes once stored in `dtype`, as that type's storage bits. */
CLAB_HD uint64_t store(uint8_t dtype, double v) {
  switch (dtype) {
    case kF32: return f32_to_bits(static_cast<float>(v));
    case kF64: return f64_to_bits(v);
    case kF16: return f16_from_f32(static_cast<float>(v));
    case kBF16: return bf16_from_f32(static_cast<float>(v));
    case kF8E4M3:
    case kF8E5M2: return f8_from_f32(dtype, static_cast<float>(v));
    case kI8:
    case kU8: return wrap_int(v) & 0xffu;
    case kI64:
    case kU64: return wrap_int64(v);
    default: return wrap_int(v);  // int32, uint32
  }
}

/** The value that storage bits of `dtype` hold. */
CLAB_HD double load(uint8_t dtype, uint64_t bits) {
  switch (dtype) {
    case kF32: return bits_to_f32(static_cast<uint32_t>(bits));
    case kF64: return bits_to_f64(bits);
    case kF16: return f16_to_f32_(static_cast<uint16_t>(bits));
    case kBF16: return bf16_to_f32_(static_cast<uint16_t>(bits));
    case kI8: return static_cast<int8_t>(static_cast<uint8_t>(bits));
    case kU8: return static_cast<uint8_t>(bits);
    case kF8E4M3:
    case kF8E5M2: return f8_to_value(dtype, static_cast<uint8_t>(bits));
    case kI32: return static_cast<int32_t>(static_cast<uint32_t>(bits));
    case kI64: return static_cast<double>(static_cast<int64_t>(bits));  // for show only: 64-bit integers reduce as integers
    case kU64: return static_cast<double>(bits);
    default: return static_cast<uint32_t>(bits);
  }
}

/**
 * A reduction step's result stored in `dtype`: float8 is computed in float16 (as NCCL does) and
 * then rounded to float8, so it rounds twice (reduce.ts' stepCast).
 */
CLAB_HD uint64_t store_step(uint8_t dtype, double v) {
  if (is_float8(dtype)) return f8_from_f32(dtype, f16_to_f32_(f16_from_f32(static_cast<float>(v))));
  return store(dtype, v);
}

CLAB_HD uint64_t read_bits(const uint8_t* p, uint8_t dtype, uint64_t i) {
  switch (element_bytes(dtype)) {
    case 8: return reinterpret_cast<const uint64_t*>(p)[i];
    case 4: return reinterpret_cast<const uint32_t*>(p)[i];
    case 2: return reinterpret_cast<const uint16_t*>(p)[i];
    default: return p[i];
  }
}

CLAB_HD void write_bits(uint8_t* p, uint8_t dtype, uint64_t i, uint64_t bits) {
  switch (element_bytes(dtype)) {
    case 8: reinterpret_cast<uint64_t*>(p)[i] = bits; break;
    case 4: reinterpret_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(bits); break;
    case 2: reinterpret_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(bits); break;
    default: p[i] = static_cast<uint8_t>(bits);
  }
}

/** patterns.ts' hashUnit: a value in [0, 1) from (seed, rank, index), with JS's 32-bit arithmetic. */
CLAB_HD double hash_unit(uint32_t seed, int32_t rank, uint64_t index) {
  uint32_t h = ((seed ^ 0x9e3779b9u) * 0x85ebca6bu) ^ ((static_cast<uint32_t>(rank) + 1u) * 0xc2b2ae35u) ^
               ((static_cast<uint32_t>(index) + 1u) * 0x27d4eb2fu);
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  h *= 0x297a2d39u;
  h ^= h >> 15;
  return static_cast<double>(h) / 4294967296.0;
}

/** Element `index` of `rank`'s input before it is stored (patterns.ts' patternGenerator). */
CLAB_HD double pattern_value(const Pattern& p, uint8_t dtype, int32_t rank, uint64_t index) {
  switch (p.kind) {
    case kConstant: return p.a0;
    case kRank: return p.a1 * rank + p.a0;
    case kArange: return (p.a0 + p.a1 * rank) + p.b * static_cast<double>(index);
    default: break;
  }
  const double u = hash_unit(p.seed, rank, index);
  return is_float(dtype) ? p.min + u * (p.max - p.min) : floor_(p.min + u * (p.max - p.min + 1));
}

/** One reduction step, stored in the element type (reduce.ts' reduceTensors). */
CLAB_HD uint64_t reduce_step(uint8_t dtype, uint8_t redop, uint64_t acc_bits, uint64_t x_bits) {
  if (is_int64(dtype)) {  // BigInt64Array / BigUint64Array: modulo 2^64, compared signed or unsigned
    const bool less = dtype == kI64 ? static_cast<int64_t>(acc_bits) < static_cast<int64_t>(x_bits) : acc_bits < x_bits;
    const bool more = dtype == kI64 ? static_cast<int64_t>(acc_bits) > static_cast<int64_t>(x_bits) : acc_bits > x_bits;
    switch (redop) {
      case kProd: return acc_bits * x_bits;
      case kMin: return less ? acc_bits : x_bits;
      case kMax: return more ? acc_bits : x_bits;
      default: return acc_bits + x_bits;  // sum, avg
    }
  }
  if (!is_float(dtype) && redop == kProd) {
    // Math.imul: the low 32 bits of the product, as the integer types wrap.
    return store(dtype, static_cast<double>(static_cast<uint32_t>(acc_bits) * static_cast<uint32_t>(x_bits)));
  }
  const double a = load(dtype, acc_bits), b = load(dtype, x_bits);
  switch (redop) {
    case kProd: return store_step(dtype, a * b);
    case kMin: return a < b ? acc_bits : x_bits;
    case kMax: return a > b ? acc_bits : x_bits;
    default: return store_step(dtype, a + b);  // sum, avg
  }
}

/**
 * The storage bits output element `i` must hold. `seg` is the segment holding i; `dtype` is
 * e.dtype (a kernel passes it as a constant, so that the switches on it fold away).
 */
CLAB_HD uint64_t expected_bits(const Expect& e, uint8_t dtype, const Segment& seg, uint64_t i) {
  const uint64_t j = i - seg.start;
  const Term* t = e.term + seg.first_term;
  uint64_t acc = store(dtype, pattern_value(e.pattern, dtype, t[0].rank, t[0].from + j));
  for (uint32_t k = 1; k < seg.terms; k++)
    acc = reduce_step(dtype, e.redop, acc, store(dtype, pattern_value(e.pattern, dtype, t[k].rank, t[k].from + j)));
  if (e.redop == kAvg && seg.terms > 1) {  // divided by the number of ranks reduced (integers truncated)
    if (dtype == kI64) {
      acc = static_cast<uint64_t>(static_cast<int64_t>(acc) / static_cast<int64_t>(seg.terms));
    } else if (dtype == kU64) {
      acc /= seg.terms;
    } else {
      const double q = load(dtype, acc) / seg.terms;
      acc = store_step(dtype, is_float(dtype) ? q : trunc_(q));
    }
  }
  return acc;
}

CLAB_HD uint64_t expected_bits(const Expect& e, const Segment& seg, uint64_t i) { return expected_bits(e, e.dtype, seg, i); }

/** check.ts' equalWithin, on storage bits: equal bits pass; NaN matches NaN; floats within tolerance. */
CLAB_HD bool element_matches(uint8_t dtype, uint64_t want_bits, uint64_t got_bits) {
  if (want_bits == got_bits) return true;
  if (is_int64(dtype)) return false;
  const double want = load(dtype, want_bits), got = load(dtype, got_bits);
  if (is_nan(want)) return is_nan(got);
  if (!is_float(dtype)) return want == got;
  if (want == got) return true;
  const double tol = dtype == kF16      ? 1e-3
                     : dtype == kBF16   ? 1e-2
                     : dtype == kF8E4M3 ? 0.125
                     : dtype == kF8E5M2 ? 0.25
                     : dtype == kF32    ? 1e-6
                                        : 1e-12;
  const double scale = fabs_(want) > 1 ? fabs_(want) : 1;
  return fabs_(want - got) <= tol * scale;
}

/** The segment holding element i (segments cover the output in order). */
CLAB_HD const Segment& segment_of(const Expect& e, uint64_t i) {
  uint32_t lo = 0, hi = e.segments - 1;
  while (lo < hi) {
    const uint32_t mid = (lo + hi + 1) / 2;
    if (e.segment[mid].start <= i) lo = mid;
    else
      hi = mid - 1;
  }
  return e.segment[lo];
}

}  // namespace data
}  // namespace clab
