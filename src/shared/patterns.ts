// Named data patterns: every rank's input is a pure function of (rank, index), so the host can
// compute the value any output element must have without running anything.
import { DTYPE_INFO, type Dtype, type Scalar, type Tensor } from './dtypes.js';

export type DataPattern =
  | { kind: 'rank'; scale?: number; offset?: number }
  | { kind: 'arange'; start?: number; step?: number; rankStride?: number }
  | { kind: 'arange_rank'; start?: number; step?: number; rankStride?: number }
  | { kind: 'constant'; value: number }
  | { kind: 'random'; seed: number; min?: number; max?: number };

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

/** The mathematical value of element `index` on `rank`, before it is stored in a dtype. */
export function patternValue(pattern: DataPattern, rank: number, index: number, dtype: Dtype): number {
  switch (pattern.kind) {
    case 'rank':
      return (pattern.scale ?? 1) * rank + (pattern.offset ?? 0);
    case 'arange':
    case 'arange_rank': {
      const rankStride = pattern.rankStride ?? (pattern.kind === 'arange_rank' ? 1 : 0);
      return (pattern.start ?? 0) + (pattern.step ?? 1) * index + rankStride * rank;
    }
    case 'constant':
      return pattern.value;
    case 'random': {
      const info = DTYPE_INFO[dtype];
      const min = pattern.min ?? (info.float ? -1 : 0);
      const max = pattern.max ?? (info.float ? 1 : 10);
      const u = hashUnit(pattern.seed, rank, index);
      return info.float ? min + u * (max - min) : Math.floor(min + u * (max - min + 1));
    }
  }
}

/** The value element `index` on `rank` holds once stored in `dtype` (rounded or wrapped). */
export function inputValue(pattern: DataPattern, rank: number, index: number, dtype: Dtype): Scalar {
  return DTYPE_INFO[dtype].cast(patternValue(pattern, rank, index, dtype));
}

export function fillTensor(tensor: Tensor, pattern: DataPattern, rank: number, offset = 0, count = tensor.length - offset): void {
  for (let i = 0; i < count; i++) tensor.set(offset + i, inputValue(pattern, rank, i, tensor.dtype));
}

export function describePattern(pattern: DataPattern): string {
  switch (pattern.kind) {
    case 'rank': return `rank×${pattern.scale ?? 1}+${pattern.offset ?? 0}`;
    case 'arange':
    case 'arange_rank': {
      const rankStride = pattern.rankStride ?? (pattern.kind === 'arange_rank' ? 1 : 0);
      return `${pattern.start ?? 0}+${pattern.step ?? 1}·i${rankStride ? `+${rankStride}·rank` : ''}`;
    }
    case 'constant': return `constant ${pattern.value}`;
    case 'random': return `random(seed ${pattern.seed})`;
  }
}
