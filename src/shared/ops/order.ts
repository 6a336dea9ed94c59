// The order an editor offers step ops in: the ones a learner writes most, first.

/** The most used ops, most used first; every other op follows them, in its own order. */
export const COMMON_OPS: readonly string[] = [
  'all_reduce',
  'broadcast',
  'send',
  'recv',
  'all_gather',
  'reduce_scatter',
  'reduce',
  'sweep',
  'pairs',
  'compare',
  'all_to_all',
  'gather',
  'scatter',
  'barrier',
  'group',
  'wait',
  'compute',
];

/** `ops` reordered: COMMON_OPS first, in their order, then the rest as they came. */
export function orderOps(ops: readonly string[]): string[] {
  const rank = (op: string) => (COMMON_OPS.includes(op) ? COMMON_OPS.indexOf(op) : COMMON_OPS.length);
  return ops
    .map((op, i) => ({ op, i }))
    .sort((a, b) => rank(a.op) - rank(b.op) || a.i - b.i)
    .map((o) => o.op);
}
