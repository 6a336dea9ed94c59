// Compares an output tensor with the values it must hold, element by element.
import { DTYPE_INFO, type Dtype, type Scalar, type Tensor } from './dtypes.js';

export interface Mismatch { index: number; expected: string; actual: string }

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
    case 'float16': return 1e-3;
    case 'bfloat16': return 1e-2;
    case 'float32': return 1e-6;
    case 'float64': return 1e-12;
    default: return 0;
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

export function checkTensor(output: Tensor, expected: (index: number) => Scalar, count = output.length): CheckResult {
  const mismatches: Mismatch[] = [];
  let wrong = 0;
  for (let i = 0; i < count; i++) {
    const want = expected(i);
    const got = output.get(i);
    if (!equalWithin(output.dtype, want, got)) {
      wrong++;
      if (mismatches.length < MAX_MISMATCHES_SHOWN) mismatches.push({ index: i, expected: formatScalar(want), actual: formatScalar(got) });
    }
  }
  return { checked: count, wrong, mismatches };
}
