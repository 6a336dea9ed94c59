// What an output must hold, described rather than computed: slices, concatenations and
// reductions of the ranks' inputs (which are pure functions of rank and index, patterns.ts).
// Reading a window computes only that window, so a 1 GiB output is checked a chunk at a time
// without building every rank's whole input and their reduction in host memory first.
import { concatTensors, sliceTensor, type Dtype, type Tensor } from './dtypes.js';
import { patternTensor, type DataPattern } from './patterns.js';

export interface Lazy {
  readonly dtype: Dtype;
  readonly length: number;
  /** Elements [from, from + count) as a tensor (which may share memory with a tensor behind it: read only). */
  read(from: number, count: number): Tensor;
}

/** A tensor that exists already. */
export const lazyTensor = (t: Tensor): Lazy => ({ dtype: t.dtype, length: t.length, read: (from, count) => sliceTensor(t, from, count) });

/** `rank`'s input of `length` elements from `pattern`, as stored in `dtype`. */
export const lazyPattern = (pattern: DataPattern, rank: number, dtype: Dtype, length: number): Lazy =>
  ({ dtype, length, read: (from, count) => patternTensor(pattern, rank, dtype, count, from) });

/** Elements [offset, offset + count) of `e`. */
export const lazySlice = (e: Lazy, offset: number, count: number): Lazy =>
  ({ dtype: e.dtype, length: count, read: (from, n) => e.read(offset + from, n) });

/** The parts one after the other. */
export function lazyConcat(dtype: Dtype, parts: Lazy[]): Lazy {
  const starts: number[] = [];
  let length = 0;
  for (const p of parts) {
    starts.push(length);
    length += p.length;
  }
  return {
    dtype,
    length,
    read(from, count) {
      const pieces: Tensor[] = [];
      const end = from + count;
      parts.forEach((p, i) => {
        const lo = Math.max(from, starts[i]);
        const hi = Math.min(end, starts[i] + p.length);
        if (hi > lo) pieces.push(p.read(lo - starts[i], hi - lo));
      });
      return pieces.length === 1 ? pieces[0] : concatTensors(dtype, pieces);
    },
  };
}

/** The element-wise reduction of equally long parts, by `reduce` (reduce.ts' reduceTensors), a window at a time. */
export const lazyReduce = (parts: Lazy[], reduce: (windows: Tensor[]) => Tensor): Lazy =>
  ({ dtype: parts[0].dtype, length: parts[0].length, read: (from, count) => reduce(parts.map((p) => p.read(from, count))) });

/** The whole of `e` as one tensor. */
export const materialize = (e: Lazy): Tensor => e.read(0, e.length);
