// Named data patterns: every rank's input is a pure function of (rank, index), so the host can
// compute the value any output element must have without running anything.
import {
  allocTensor,
  DTYPE_INFO,
  float32ToBfloat16Bits,
  float32ToFloat16Bits,
  float32ToFloat8Bits,
  type Dtype,
  type Scalar,
  type Tensor,
} from './dtypes.js';
import { valuesOfRank, type ValuesPattern } from './values.js';

export type DataPattern =
  | { kind: 'rank'; scale?: number; offset?: number }
  | { kind: 'arange'; start?: number; step?: number; rankStride?: number }
  | { kind: 'arange_rank'; start?: number; step?: number; rankStride?: number }
  | { kind: 'constant'; value: number }
  | { kind: 'random'; seed: number; min?: number; max?: number }
  | ValuesPattern;

/** A value in [0, 1) from a 32-bit hash of (seed, rank, index): reproducible on every host. */
function hashUnit(seed: number, rank: number, index: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(rank + 1, 0xc2b2ae35) ^ Math.imul(index + 1, 0x27d4eb2f);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  h = Math.imul(h, 0x297a2d39);
  h ^= h >>> 15;
  return (h >>> 0) / 4294967296;
}

/** A random pattern's bounds on `dtype`: as given, else [-1, 1) for floats and 0…10 for integers. */
export function randomRange(pattern: Extract<DataPattern, { kind: 'random' }>, dtype: Dtype): { float: boolean; min: number; max: number } {
  const float = DTYPE_INFO[dtype].float;
  return { float, min: pattern.min ?? (float ? -1 : 0), max: pattern.max ?? (float ? 1 : 10) };
}

/** Element index → mathematical value on `rank`, specialised once per pattern for bulk loops. */
export function patternGenerator(pattern: DataPattern, rank: number, dtype: Dtype): (index: number) => number {
  switch (pattern.kind) {
    case 'rank': {
      const v = (pattern.scale ?? 1) * rank + (pattern.offset ?? 0);
      return () => v;
    }
    case 'arange':
    case 'arange_rank': {
      const rankStride = pattern.rankStride ?? (pattern.kind === 'arange_rank' ? 1 : 0);
      const base = (pattern.start ?? 0) + rankStride * rank;
      const step = pattern.step ?? 1;
      return (i) => base + step * i;
    }
    case 'constant': {
      const v = pattern.value;
      return () => v;
    }
    case 'random': {
      const { float, min, max } = randomRange(pattern, dtype);
      const seed = pattern.seed;
      return float
        ? (i) => min + hashUnit(seed, rank, i) * (max - min)
        : (i) => Math.floor(min + hashUnit(seed, rank, i) * (max - min + 1));
    }
    case 'values': {
      // The plan checks every list's length against its step; 0 past the end keeps a rank that
      // disagrees on purpose (a deliberate mistake) from throwing.
      const list = valuesOfRank(pattern, rank);
      return (i) => list[i] ?? 0;
    }
  }
}

/** The mathematical value of element `index` on `rank`, before it is stored in a dtype. */
export function patternValue(pattern: DataPattern, rank: number, index: number, dtype: Dtype): number {
  return patternGenerator(pattern, rank, dtype)(index);
}

/** The value element `index` on `rank` holds once stored in `dtype` (rounded or wrapped). */
export function inputValue(pattern: DataPattern, rank: number, index: number, dtype: Dtype): Scalar {
  return DTYPE_INFO[dtype].cast(patternValue(pattern, rank, index, dtype));
}

/**
 * Fills elements [offset, offset + count) with pattern elements from, from + 1, … of `rank`.
 * Stores go straight into the typed array, whose own conversion is the dtype's cast (round to
 * float32, wrap integers).
 */
export function fillTensor(tensor: Tensor, pattern: DataPattern, rank: number, offset = 0, count = tensor.length - offset, from = 0): void {
  const value = patternGenerator(pattern, rank, tensor.dtype);
  const raw = tensor.raw;
  switch (tensor.dtype) {
    case 'float16':
      for (let i = 0; i < count; i++) raw[offset + i] = float32ToFloat16Bits(value(from + i));
      return;
    case 'bfloat16':
      for (let i = 0; i < count; i++) raw[offset + i] = float32ToBfloat16Bits(value(from + i));
      return;
    case 'float8_e4m3':
    case 'float8_e5m2': {
      const format = tensor.dtype;
      for (let i = 0; i < count; i++) raw[offset + i] = float32ToFloat8Bits(format, value(from + i));
      return;
    }
    case 'int64':
    case 'uint64': {
      const a = raw as BigInt64Array;
      const cast = DTYPE_INFO[tensor.dtype].cast;
      for (let i = 0; i < count; i++) a[offset + i] = cast(value(from + i)) as bigint;
      return;
    }
    default:
      fillNumbers(raw as Float32Array, pattern, rank, tensor.dtype, offset, count, from, value);
  }
}

/**
 * The typed arrays that hold numbers (float32/64, int8/32, uint8): one loop per pattern kind, so
 * a 1 GiB input is not filled through a call per element. Stores convert exactly as `value(i)`
 * stored one at a time would (fill() and element stores share the typed array's conversion).
 */
function fillNumbers(
  a: Float32Array,
  pattern: DataPattern,
  rank: number,
  dtype: Dtype,
  offset: number,
  count: number,
  from: number,
  value: (i: number) => number,
): void {
  switch (pattern.kind) {
    case 'rank':
    case 'constant':
      a.fill(value(0), offset, offset + count);
      return;
    case 'arange':
    case 'arange_rank': {
      const base = value(0);
      const step = pattern.step ?? 1;
      for (let i = 0; i < count; i++) a[offset + i] = base + step * (from + i);
      return;
    }
    case 'random': {
      const { float, min, max } = randomRange(pattern, dtype);
      const seed = pattern.seed;
      if (float) {
        const span = max - min;
        for (let i = 0; i < count; i++) a[offset + i] = min + hashUnit(seed, rank, from + i) * span;
      } else {
        const span = max - min + 1;
        for (let i = 0; i < count; i++) a[offset + i] = Math.floor(min + hashUnit(seed, rank, from + i) * span);
      }
      return;
    }
    case 'values':
      for (let i = 0; i < count; i++) a[offset + i] = value(from + i);
  }
}

/** Elements [from, from + count) of rank `rank`'s input, as stored. */
export function patternTensor(pattern: DataPattern, rank: number, dtype: Dtype, count: number, from = 0): Tensor {
  const t = allocTensor(dtype, count);
  fillTensor(t, pattern, rank, 0, count, from);
  return t;
}
