// The output as a learner reads it: values for small tensors, nothing for large ones.
import { formatScalar } from '../shared/check.js';
import type { Tensor } from '../shared/dtypes.js';

export const PREVIEW_LIMIT = 32;

export function previewTensor(t: Tensor, listEntry: number | null): string | null {
  if (t.length > PREVIEW_LIMIT) return null;
  const values = Array.from({ length: t.length }, (_, i) => formatScalar(t.get(i)));
  if (!listEntry) return `[${values.join(', ')}]`;
  const parts: string[] = [];
  for (let i = 0; i < values.length; i += listEntry) parts.push(`[${values.slice(i, i + listEntry).join(', ')}]`);
  return `[${parts.join(', ')}]`;
}
