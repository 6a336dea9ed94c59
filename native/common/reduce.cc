// The reduction kernel: acc = x0; acc = op(acc, xp) for p = 1..n-1, each step in the element type.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "common/dtype.h"

namespace clab {
namespace {

// Blocks of 4 KiB keep the accumulator in L1 while the inputs stream through.
template <class T, class F>
void fold(T* out, const T* const* in, int n, size_t count, F f) {
  constexpr size_t kBlock = 4096 / sizeof(T);
  for (size_t b = 0; b < count; b += kBlock) {
    const size_t m = std::min(kBlock, count - b);
    T* o = out + b;
    const T* a = in[0] + b;
    if (n == 1) {
      if (o != a) std::memmove(o, a, m * sizeof(T));
      continue;
    }
    const T* __restrict c = in[1] + b;
    if (o == a) {
      T* __restrict oo = o;
      for (size_t i = 0; i < m; i++) oo[i] = f(oo[i], c[i]);
    } else {
      T* __restrict oo = o;
      const T* __restrict aa = a;
      for (size_t i = 0; i < m; i++) oo[i] = f(aa[i], c[i]);
    }
    for (int p = 2; p < n; p++) {
      T* __restrict oo = o;
      const T* __restrict x = in[p] + b;
      for (size_t i = 0; i < m; i++) oo[i] = f(oo[i], x[i]);
    }
  }
}

template <class T, class D>
void divide_all(T* out, size_t count, D div) {
  for (size_t i = 0; i < count; i++) out[i] = div(out[i]);
}

template <class T>
void reduce_float(Redop r, T* out, const T* const* in, int n, size_t count) {
  switch (r) {
    case Redop::Sum:
    case Redop::Avg: fold(out, in, n, count, [](T a, T b) -> T { return a + b; }); break;
    case Redop::Prod: fold(out, in, n, count, [](T a, T b) -> T { return a * b; }); break;
    case Redop::Min: fold(out, in, n, count, [](T a, T b) -> T { return a < b ? a : b; }); break;
    case Redop::Max: fold(out, in, n, count, [](T a, T b) -> T { return a > b ? a : b; }); break;
  }
  if (r == Redop::Avg) {
    const T d = static_cast<T>(n);
    divide_all(out, count, [d](T x) -> T { return x / d; });
  }
}

// Narrow floats (float16, bfloat16, float8): operands to float32, compute in float32, round back
// with Store (round to nearest even).
template <class T, float (*Load)(T), T (*Store)(float)>
void reduce_narrow(Redop r, T* out, const T* const* in, int n, size_t count) {
  switch (r) {
    case Redop::Sum:
    case Redop::Avg: fold(out, in, n, count, [](T a, T b) { return Store(Load(a) + Load(b)); }); break;
    case Redop::Prod: fold(out, in, n, count, [](T a, T b) { return Store(Load(a) * Load(b)); }); break;
    case Redop::Min: fold(out, in, n, count, [](T a, T b) { return Load(a) < Load(b) ? a : b; }); break;
    case Redop::Max: fold(out, in, n, count, [](T a, T b) { return Load(a) > Load(b) ? a : b; }); break;
  }
  if (r == Redop::Avg) {
    const float d = static_cast<float>(n);
    divide_all(out, count, [d](T x) { return Store(Load(x) / d); });
  }
}

// float8 steps: NCCL computes them in half precision (__hadd, __hmul) and converts back with
// saturation, so a result is rounded to float16 first, then to float8.
uint8_t e4m3_via_half(float x) { return f32_to_e4m3(f16_to_f32(f32_to_f16(x))); }
uint8_t e5m2_via_half(float x) { return f32_to_e5m2(f16_to_f32(f32_to_f16(x))); }

// Integers wrap: sums and products in the unsigned type, then back; avg truncates toward zero.
template <class T>
void reduce_int(Redop r, T* out, const T* const* in, int n, size_t count) {
  using U = std::make_unsigned_t<T>;
  switch (r) {
    case Redop::Sum:
    case Redop::Avg:
      fold(out, in, n, count, [](T a, T b) { return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b))); });
      break;
    case Redop::Prod:
      fold(out, in, n, count, [](T a, T b) { return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b))); });
      break;
    case Redop::Min: fold(out, in, n, count, [](T a, T b) { return a < b ? a : b; }); break;
    case Redop::Max: fold(out, in, n, count, [](T a, T b) { return a > b ? a : b; }); break;
  }
  if (r == Redop::Avg) {
    using W = std::conditional_t<(sizeof(T) < sizeof(int)), int, T>;
    const W d = static_cast<W>(n);
    divide_all(out, count, [d](T x) { return static_cast<T>(static_cast<W>(x) / d); });
  }
}

template <class T>
const T* const* cast_in(const void* const* in) {
  return reinterpret_cast<const T* const*>(in);
}

}  // namespace

void reduce_n(Dtype dtype, Redop redop, void* out, const void* const* in, int n, size_t count) {
  if (count == 0) return;
  switch (dtype) {
    case Dtype::Float32: reduce_float(redop, static_cast<float*>(out), cast_in<float>(in), n, count); break;
    case Dtype::Float64: reduce_float(redop, static_cast<double*>(out), cast_in<double>(in), n, count); break;
    case Dtype::Float16:
      reduce_narrow<uint16_t, f16_to_f32, f32_to_f16>(redop, static_cast<uint16_t*>(out), cast_in<uint16_t>(in), n, count);
      break;
    case Dtype::BFloat16:
      reduce_narrow<uint16_t, bf16_to_f32, f32_to_bf16>(redop, static_cast<uint16_t*>(out), cast_in<uint16_t>(in), n, count);
      break;
    case Dtype::Float8E4m3:
      reduce_narrow<uint8_t, e4m3_to_f32, e4m3_via_half>(redop, static_cast<uint8_t*>(out), cast_in<uint8_t>(in), n, count);
      break;
    case Dtype::Float8E5m2:
      reduce_narrow<uint8_t, e5m2_to_f32, e5m2_via_half>(redop, static_cast<uint8_t*>(out), cast_in<uint8_t>(in), n, count);
      break;
    case Dtype::Int8: reduce_int(redop, static_cast<int8_t*>(out), cast_in<int8_t>(in), n, count); break;
    case Dtype::Uint8: reduce_int(redop, static_cast<uint8_t*>(out), cast_in<uint8_t>(in), n, count); break;
    case Dtype::Int32: reduce_int(redop, static_cast<int32_t*>(out), cast_in<int32_t>(in), n, count); break;
    case Dtype::Uint32: reduce_int(redop, static_cast<uint32_t*>(out), cast_in<uint32_t>(in), n, count); break;
    case Dtype::Int64: reduce_int(redop, static_cast<int64_t*>(out), cast_in<int64_t>(in), n, count); break;
    case Dtype::Uint64: reduce_int(redop, static_cast<uint64_t*>(out), cast_in<uint64_t>(in), n, count); break;
  }
}

}  // namespace clab
