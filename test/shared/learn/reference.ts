// What every rank holds before and after each collective, written out by hand from the ops'
// definitions (torch.distributed's docs) for arange_rank data, without the op descriptors: the
// worked examples are checked against this, not against the code that made them.
import type { CollectiveName } from '../../../src/shared/ops/index.js';

type Values = number[] | number[][];
export interface Reference {
  input: Values | null;
  output: Values | null;
}

const range = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/**
 * Rank r's element i is stride·r + i. `count` is the op's count as a scenario gives it: for the
 * flat forms that split a tensor (reduce_scatter_tensor, all_to_all_single) the whole tensor.
 */
export function reference(op: CollectiveName, world: number, count: number, root: number, stride: number, rank: number): Reference {
  const x = (r: number, i: number) => stride * r + i;
  const xs = (r: number, from: number, n: number) => range(n, (i) => x(r, from + i));
  const sum = (from: number, n: number) => range(n, (i) => range(world, (p) => x(p, from + i)).reduce((a, b) => a + b, 0));
  const list = (n: number, f: (j: number) => number[]) => range(n, f);
  const chunk = count / world;
  switch (op) {
    case 'broadcast':
      return { input: xs(rank, 0, count), output: xs(root, 0, count) };
    case 'all_reduce':
      return { input: xs(rank, 0, count), output: sum(0, count) };
    case 'reduce':
      return { input: xs(rank, 0, count), output: rank === root ? sum(0, count) : null };
    case 'all_gather':
      return { input: xs(rank, 0, count), output: list(world, (p) => xs(p, 0, count)) };
    case 'all_gather_into_tensor':
      return { input: xs(rank, 0, count), output: list(world, (p) => xs(p, 0, count)).flat() };
    case 'gather':
      return { input: xs(rank, 0, count), output: rank === root ? list(world, (p) => xs(p, 0, count)) : null };
    case 'scatter':
      return { input: rank === root ? list(world, (j) => xs(root, j * count, count)) : null, output: xs(root, rank * count, count) };
    case 'reduce_scatter':
      return { input: list(world, (j) => xs(rank, j * count, count)), output: sum(rank * count, count) };
    case 'reduce_scatter_tensor':
      return { input: xs(rank, 0, count), output: sum(rank * chunk, chunk) };
    case 'all_to_all':
      return { input: list(world, (j) => xs(rank, j * count, count)), output: list(world, (p) => xs(p, rank * count, count)) };
    case 'all_to_all_single':
      return { input: xs(rank, 0, count), output: list(world, (p) => xs(p, rank * chunk, chunk)).flat() };
  }
}
