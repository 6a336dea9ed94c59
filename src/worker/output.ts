// The output as a learner reads it (values for small tensors, nothing for large ones), and the
// check of it against what it must hold.
import { checkLazy, checkTensor, formatScalar, type CheckResult } from '../shared/data/check.js';
import { sliceTensor, type Tensor } from '../shared/data/dtypes.js';
import type { Lazy } from '../shared/data/lazy.js';

export const PREVIEW_LIMIT = 32;

export function previewTensor(t: Tensor, listEntry: number | null): string | null {
  if (t.length > PREVIEW_LIMIT) return null;
  const values = Array.from({ length: t.length }, (_, i) => formatScalar(t.get(i)));
  if (!listEntry) return `[${values.join(', ')}]`;
  const parts: string[] = [];
  for (let i = 0; i < values.length; i += listEntry) parts.push(`[${values.slice(i, i + listEntry).join(', ')}]`);
  return `[${parts.join(', ')}]`;
}

/** checkLazy with Node's memcmp for windows that match exactly: ten times the element loop's speed. */
export const checkOutput = (output: Tensor, expected: Lazy): CheckResult =>
  checkLazy(output, expected, { sameBytes: (a, b) => Buffer.compare(a, b) === 0 });

/**
 * The check a backend made of its own data (data-program.ts): its count of wrong elements, and
 * the first mismatches computed here from the stretch it copied back from the first of them.
 */
export function backendCheck(output: Tensor, expected: Lazy, result: Float64Array): CheckResult {
  const [wrong, first] = result;
  if (wrong < 0) throw new Error('the backend was to check this output but did not (its result is unset)');
  if (wrong === 0 || first < 0) return { checked: expected.length, wrong, mismatches: [] };
  const n = Math.min(BACKEND_WINDOW, expected.length - first);
  const shown = checkTensor(sliceTensor(output, first, n), expected.read(first, n), (a, b) => Buffer.compare(a, b) === 0);
  return { checked: expected.length, wrong, mismatches: shown.mismatches.map((m) => ({ ...m, index: m.index + first })) };
}

/** Elements from the first wrong one that the backend copies back (native/nccl/nccl_staging.cc's kWindow). */
const BACKEND_WINDOW = 1 << 16;

/** A prepared call's check: the backend's where it made the data, else the host's, window by window. */
export const checkCall = (
  c: { output: Tensor | null; expected: () => Lazy | null; data?: { result: Float64Array } },
  expected: Lazy,
): CheckResult => (c.data ? backendCheck(c.output!, expected, c.data.result) : checkOutput(c.output!, expected));
