// Compares an output tensor with the values it must hold, element by element.
import { DTYPE_INFO, sliceTensor, type Dtype, type Scalar, type Tensor } from './dtypes.js';
import type { Lazy } from './lazy.js';

export interface Mismatch {
  index: number;
  expected: string;
  actual: string;
}

export interface CheckResult {
  checked: number;
  wrong: number;
  /** The first few mismatches, in index order. */
  mismatches: Mismatch[];
}

export const MAX_MISMATCHES_SHOWN = 5;

/** Tolerance per dtype, relative to max(1, |expected|): exact for integers. */
export function tolerance(dtype: Dtype): number {
  switch (dtype) {
    case 'float16':
      return 1e-3;
    case 'bfloat16':
      return 1e-2;
    // A rounding step of 3 (e4m3) or 2 (e5m2) mantissa bits; reduction orders differ between backends.
    case 'float8_e4m3':
      return 0.125;
    case 'float8_e5m2':
      return 0.25;
    case 'float32':
      return 1e-6;
    case 'float64':
      return 1e-12;
    default:
      return 0;
  }
}

export function formatScalar(v: Scalar): string {
  if (typeof v === 'bigint') return v.toString();
  if (Number.isInteger(v)) return String(v);
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  return String(Number(v.toPrecision(6)));
}

export function equalWithin(dtype: Dtype, expected: Scalar, actual: Scalar): boolean {
  if (typeof expected === 'bigint' || typeof actual === 'bigint') return BigInt(expected) === BigInt(actual);
  if (Number.isNaN(expected)) return Number.isNaN(actual);
  if (!DTYPE_INFO[dtype].float) return expected === actual;
  if (expected === actual) return true;
  return Math.abs(expected - actual) <= tolerance(dtype) * Math.max(1, Math.abs(expected));
}

type Words = Uint8Array | Uint16Array | Uint32Array;

/** The tensor's storage as unsigned words (two per element for 8-byte types) for bit comparison. */
function words(t: Tensor): { w: Words; per: number } {
  const { buffer, byteOffset, byteLength } = t.bytes;
  switch (DTYPE_INFO[t.dtype].bytes) {
    case 1:
      return { w: new Uint8Array(buffer, byteOffset, byteLength), per: 1 };
    case 2:
      return { w: new Uint16Array(buffer, byteOffset, byteLength / 2), per: 1 };
    case 4:
      return { w: new Uint32Array(buffer, byteOffset, byteLength / 4), per: 1 };
    default:
      return { w: new Uint32Array(buffer, byteOffset, byteLength / 4), per: 2 };
  }
}

/** Whether two byte ranges are equal, by a faster means than the element loop (e.g. memcmp). */
export type SameBytes = (a: Uint8Array, b: Uint8Array) => boolean;

/**
 * Compares every element of `output` with `expected`: storage that `sameBytes` finds identical
 * passes at once, equal bits pass in a tight loop (the common cases); anything else is decoded and
 * compared within the dtype's tolerance.
 */
export function checkTensor(output: Tensor, expected: Tensor, sameBytes?: SameBytes): CheckResult {
  const mismatches: Mismatch[] = [];
  const count = expected.length;
  if (sameBytes && output.length === count && sameBytes(output.bytes, expected.bytes)) return { checked: count, wrong: 0, mismatches };
  let wrong = Math.max(0, count - output.length);
  const n = Math.min(count, output.length);
  const a = words(output);
  const b = words(expected);
  const per = a.per;
  for (let i = 0; i < n; i++) {
    const k = i * per;
    if (a.w[k] === b.w[k] && (per === 1 || a.w[k + 1] === b.w[k + 1])) continue;
    const want = expected.get(i);
    const got = output.get(i);
    if (equalWithin(output.dtype, want, got)) continue;
    wrong++;
    if (mismatches.length < MAX_MISMATCHES_SHOWN) mismatches.push({ index: i, expected: formatScalar(want), actual: formatScalar(got) });
  }
  return { checked: count, wrong, mismatches };
}

/** Elements per window of checkLazy: a few MiB, so the windows of every input stay in cache. */
export const CHECK_WINDOW = 1 << 18;

/**
 * checkTensor against an output described lazily (lazy.ts), one window at a time: the same
 * result, without building the whole expected tensor (and every rank's input behind it) first.
 */
export function checkLazy(output: Tensor, expected: Lazy, options: { window?: number; sameBytes?: SameBytes } = {}): CheckResult {
  const window = options.window ?? CHECK_WINDOW;
  const count = expected.length;
  const n = Math.min(count, output.length);
  let wrong = count - n;
  const mismatches: Mismatch[] = [];
  for (let lo = 0; lo < n; lo += window) {
    const size = Math.min(window, n - lo);
    const part = checkTensor(sliceTensor(output, lo, size), expected.read(lo, size), options.sameBytes);
    wrong += part.wrong;
    for (const m of part.mismatches) if (mismatches.length < MAX_MISMATCHES_SHOWN) mismatches.push({ ...m, index: m.index + lo });
  }
  return { checked: count, wrong, mismatches };
}
