// The order completion offers a step's ops in. Monaco's JSON worker gives its value
// completions no sortText, so the suggest widget lists them by label (all_gather first,
// all_reduce and broadcast among the rest); the editor gives them the order of use.
import { orderOps } from '../../../shared/ops/order.js';

/** The text before the cursor ends in the value of an `op` key: `"op": "` or `"op": "al`. */
export function isOpValue(linePrefix: string): boolean {
  return /"op"\s*:\s*"?[\w]*$/.test(linePrefix);
}

const unquote = (label: string | { label: string }) => (typeof label === 'string' ? label : label.label).replace(/^"(.*)"$/, '$1');

/**
 * The suggestions, each with a sortText that puts the most used ops first; other
 * completions than an op value are left as they are.
 */
export function withOpOrder<T extends { label: string | { label: string }; sortText?: string }>(
  linePrefix: string,
  items: readonly T[],
): T[] {
  if (!isOpValue(linePrefix)) return [...items];
  const order = orderOps(items.map((i) => unquote(i.label)));
  return items.map((item) => ({ ...item, sortText: String(order.indexOf(unquote(item.label))).padStart(3, '0') }));
}
