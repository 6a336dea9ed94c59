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
  /**
   * The same, as runs of pattern elements (for a backend to compute where the data is, see
   * data-program.ts); absent where the value is not made of patterns this way.
   */
  readonly segments?: readonly LazySegment[];
}

/** One element of one rank's input: `rank`'s pattern element `from` (+ j for the segment's j-th). */
export interface LazyTerm {
  pattern: DataPattern;
  rank: number;
  from: number;
}
/** `length` elements, each one term's, or the reduction of several terms' (`reduced`). */
export interface LazySegment {
  length: number;
  terms: LazyTerm[];
  reduced: boolean;
}

/** A tensor that exists already. */
export const lazyTensor = (t: Tensor): Lazy => ({ dtype: t.dtype, length: t.length, read: (from, count) => sliceTensor(t, from, count) });

/** `rank`'s input of `length` elements from `pattern`, as stored in `dtype`. */
export const lazyPattern = (pattern: DataPattern, rank: number, dtype: Dtype, length: number): Lazy => ({
  dtype,
  length,
  read: (from, count) => patternTensor(pattern, rank, dtype, count, from),
  segments: length ? [{ length, terms: [{ pattern, rank, from: 0 }], reduced: false }] : [],
});

/** Segments [offset, offset + count) of a run of segments. */
function sliceSegments(segments: readonly LazySegment[], offset: number, count: number): LazySegment[] {
  const out: LazySegment[] = [];
  let at = 0;
  for (const s of segments) {
    const lo = Math.max(offset, at);
    const hi = Math.min(offset + count, at + s.length);
    if (hi > lo) out.push({ length: hi - lo, terms: s.terms.map((t) => ({ ...t, from: t.from + (lo - at) })), reduced: s.reduced });
    at += s.length;
    if (at >= offset + count) break;
  }
  return out;
}

/** Elements [offset, offset + count) of `e`. */
export const lazySlice = (e: Lazy, offset: number, count: number): Lazy => ({
  dtype: e.dtype,
  length: count,
  read: (from, n) => e.read(offset + from, n),
  ...(e.segments ? { segments: sliceSegments(e.segments, offset, count) } : {}),
});

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
    ...(parts.every((p) => p.segments) ? { segments: parts.flatMap((p) => p.segments!) } : {}),
  };
}

/**
 * The element-wise reduction of equally long parts, by `reduce` (reduce.ts' reduceTensors), a
 * window at a time. Its segments: where every part is plain pattern runs, each stretch between
 * the parts' run boundaries reduces one term of each part, in part order.
 */
export function lazyReduce(parts: Lazy[], reduce: (windows: Tensor[]) => Tensor): Lazy {
  const length = parts[0].length;
  const lazy: Lazy = { dtype: parts[0].dtype, length, read: (from, count) => reduce(parts.map((p) => p.read(from, count))) };
  if (!parts.every((p) => p.segments && p.segments.every((s) => !s.reduced && s.terms.length === 1))) return lazy;
  const cuts = new Set<number>([length]);
  for (const p of parts) {
    let at = 0;
    for (const s of p.segments!) cuts.add((at += s.length));
  }
  const segments: LazySegment[] = [];
  let lo = 0;
  for (const hi of [...cuts].sort((a, b) => a - b)) {
    if (hi <= lo) continue;
    segments.push({ length: hi - lo, terms: parts.map((p) => sliceSegments(p.segments!, lo, hi - lo)[0].terms[0]), reduced: true });
    lo = hi;
  }
  return { ...lazy, segments };
}

/** The whole of `e` as one tensor. */
export const materialize = (e: Lazy): Tensor => e.read(0, e.length);
