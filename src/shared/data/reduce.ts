// Reductions exactly as the backends evaluate them: acc = x0, then acc = op(acc, xp) in rank
// order, each step rounded to the element type (half types via float32, float8 types via float16
// as NCCL computes them), integers wrapping.
import {
  allocTensor,
  bfloat16BitsToFloat32,
  DTYPE_INFO,
  float16BitsToFloat32,
  float32ToBfloat16Bits,
  float32ToFloat16Bits,
  float32ToFloat8Bits,
  float8Table,
  isBigIntDtype,
  type Dtype,
  type Scalar,
  type Tensor,
} from './dtypes.js';

export const REDOPS = ['sum', 'prod', 'min', 'max', 'avg'] as const;
export type Redop = (typeof REDOPS)[number];

type Binary = (a: Scalar, b: Scalar) => Scalar;

const isFloat8 = (d: Dtype): d is 'float8_e4m3' | 'float8_e5m2' => d === 'float8_e4m3' || d === 'float8_e5m2';

/**
 * The rounding of one reduction step's result. float8: NCCL computes in float16 (the operands are
 * exact there) and converts back, so the result is rounded twice: to float16, then to float8.
 */
function stepCast(dtype: Dtype): (x: number) => number {
  const cast = DTYPE_INFO[dtype].cast as (x: number) => number;
  if (!isFloat8(dtype)) return cast;
  const half = DTYPE_INFO.float16.cast as (x: number) => number;
  return (x) => cast(half(x));
}

function binaryFor(dtype: Dtype, redop: Exclude<Redop, 'avg'>): Binary {
  if (isBigIntDtype(dtype)) {
    const w = dtype === 'int64' ? (x: bigint) => BigInt.asIntN(64, x) : (x: bigint) => BigInt.asUintN(64, x);
    switch (redop) {
      case 'sum':
        return (a, b) => w((a as bigint) + (b as bigint));
      case 'prod':
        return (a, b) => w((a as bigint) * (b as bigint));
      case 'min':
        return (a, b) => ((a as bigint) < (b as bigint) ? a : b);
      case 'max':
        return (a, b) => ((a as bigint) > (b as bigint) ? a : b);
    }
  }
  const cast = stepCast(dtype);
  switch (redop) {
    case 'sum':
      return (a, b) => cast((a as number) + (b as number));
    case 'prod':
      // 32-bit products exceed 2^53; Math.imul wraps exactly like the native unsigned multiply.
      if (dtype === 'int32') return (a, b) => Math.imul(a as number, b as number);
      if (dtype === 'uint32') return (a, b) => Math.imul(a as number, b as number) >>> 0;
      return (a, b) => cast((a as number) * (b as number));
    case 'min':
      return (a, b) => ((a as number) < (b as number) ? a : b);
    case 'max':
      return (a, b) => ((a as number) > (b as number) ? a : b);
  }
}

/** Reduces one element's values (index = rank) the way every backend does. */
export function reducer(dtype: Dtype, redop: Redop): (values: Scalar[]) => Scalar {
  const op = binaryFor(dtype, redop === 'avg' ? 'sum' : redop);
  const fold = (values: Scalar[]) => values.reduce((acc, v) => op(acc, v));
  if (redop !== 'avg') return fold;
  if (isBigIntDtype(dtype)) return (values) => (fold(values) as bigint) / BigInt(values.length);
  const cast = stepCast(dtype);
  // The cast also turns -0 into 0: integers have no negative zero.
  if (!DTYPE_INFO[dtype].float) return (values) => cast(Math.trunc((fold(values) as number) / values.length));
  return (values) => cast((fold(values) as number) / values.length);
}

type Combine = (a: number, b: number) => number;

const halfTables = new Map<Dtype, Float32Array>();

/** Bits → value for a half type through a 65536-entry table (built once): the hot loop's decode. */
function halfDecoder(dtype: 'float16' | 'bfloat16'): (bits: number) => number {
  let table = halfTables.get(dtype);
  if (!table) {
    const decode = dtype === 'float16' ? float16BitsToFloat32 : bfloat16BitsToFloat32;
    table = Float32Array.from({ length: 65536 }, (_, h) => decode(h));
    halfTables.set(dtype, table);
  }
  const t = table;
  return (bits) => t[bits];
}

function combineNumbers(redop: Exclude<Redop, 'avg'>, int32: boolean): Combine {
  switch (redop) {
    case 'sum':
      return (a, b) => a + b;
    // Math.imul's 32 bits stored into an Int32Array or Uint32Array wrap as the native multiply does.
    case 'prod':
      return int32 ? Math.imul : (a, b) => a * b;
    case 'min':
      return (a, b) => (a < b ? a : b);
    case 'max':
      return (a, b) => (a > b ? a : b);
  }
}

/**
 * The element-wise reduction of equally long tensors (index = rank), in bulk, with exactly the
 * semantics of `reducer`: stores into the dtype's typed array round (float32) or wrap (integers)
 * after every step; half types go through float32 and are rounded back after every step.
 */
export function reduceTensors(dtype: Dtype, redop: Redop, parts: Tensor[]): Tensor {
  const n = parts[0].length;
  const world = parts.length;
  const out = allocTensor(dtype, n);
  const op = redop === 'avg' ? 'sum' : redop;
  if (isBigIntDtype(dtype)) {
    // Stores into BigInt64Array / BigUint64Array wrap modulo 2^64, like the native kernels.
    const acc = out.raw as BigInt64Array;
    acc.set(parts[0].raw as BigInt64Array);
    const f =
      op === 'sum'
        ? (a: bigint, b: bigint) => a + b
        : op === 'prod'
          ? (a: bigint, b: bigint) => a * b
          : op === 'min'
            ? (a: bigint, b: bigint) => (a < b ? a : b)
            : (a: bigint, b: bigint) => (a > b ? a : b);
    for (let p = 1; p < world; p++) {
      const x = parts[p].raw as BigInt64Array;
      for (let i = 0; i < n; i++) acc[i] = f(acc[i], x[i]);
    }
    if (redop === 'avg') for (let i = 0; i < n; i++) acc[i] /= BigInt(world);
    return out;
  }
  const f = combineNumbers(op, dtype === 'int32' || dtype === 'uint32');
  if (isFloat8(dtype)) {
    const decode = float8Table(dtype);
    const half = DTYPE_INFO.float16.cast as (x: number) => number;
    const encode = (x: number) => float32ToFloat8Bits(dtype, half(x));
    const acc = out.raw as Uint8Array;
    acc.set(parts[0].raw as Uint8Array);
    for (let p = 1; p < world; p++) {
      const x = parts[p].raw as Uint8Array;
      for (let i = 0; i < n; i++) acc[i] = encode(f(decode[acc[i]], decode[x[i]]));
    }
    if (redop === 'avg') for (let i = 0; i < n; i++) acc[i] = encode(decode[acc[i]] / world);
    return out;
  }
  if (dtype === 'float16' || dtype === 'bfloat16') {
    const decode = halfDecoder(dtype);
    const encode = dtype === 'float16' ? float32ToFloat16Bits : float32ToBfloat16Bits;
    const acc = out.raw as Uint16Array;
    acc.set(parts[0].raw as Uint16Array);
    for (let p = 1; p < world; p++) {
      const x = parts[p].raw as Uint16Array;
      for (let i = 0; i < n; i++) acc[i] = encode(f(decode(acc[i]), decode(x[i])));
    }
    if (redop === 'avg') for (let i = 0; i < n; i++) acc[i] = encode(decode(acc[i]) / world);
    return out;
  }
  const acc = out.raw as Float64Array;
  acc.set(parts[0].raw as Float64Array);
  for (let p = 1; p < world; p++) {
    const x = parts[p].raw as Float64Array;
    for (let i = 0; i < n; i++) acc[i] = f(acc[i], x[i]);
  }
  if (redop === 'avg') {
    const float = DTYPE_INFO[dtype].float;
    for (let i = 0; i < n; i++) acc[i] = float ? acc[i] / world : Math.trunc(acc[i] / world);
  }
  return out;
}
