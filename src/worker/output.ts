// The output as a learner reads it (values for small tensors, nothing for large ones), and the
// check of it against what it must hold.
import { checkLazy, formatScalar, type CheckResult } from '../shared/check.js';
import type { Tensor } from '../shared/dtypes.js';
import type { Lazy } from '../shared/lazy.js';

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
