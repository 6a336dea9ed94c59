// Data a backend makes and checks where it computes (the GPU's memory on nccl), described for it:
// the pattern a send buffer is filled from, and what each output element must hold as runs of
// pattern elements, reduced where the op reduces (native/common/data_program.h evaluates both, bit for
// bit as patterns.ts, reduce.ts and check.ts do). The host then computes values only for the
// few elements it shows: small tensors, and the first mismatches of a failed check.
import { DTYPES, type Dtype } from './dtypes.js';
import type { Lazy } from './lazy.js';
import { randomRange, type DataPattern } from './patterns.js';

/** The types native/common/data_program.h makes and checks: all of them. */
export const BACKEND_DATA_DTYPES: ReadonlySet<Dtype> = new Set<Dtype>(DTYPES);

/**
 * From this many elements a buffer's data is made and checked by the backend; smaller tensors are
 * what a learner reads, and stay on the host path with their values shown.
 */
export const BACKEND_DATA_MIN_ELEMENTS = 4096;

/**
 * A pattern as data_program.h's Pattern, in patterns.ts' order of operations: kind 0 constant a0;
 * 1 rank a1·rank + a0; 2 arange (a0 + a1·rank) + b·i; 3 random, the seeded hash into [min, max].
 */
export interface NativePattern {
  kind: 0 | 1 | 2 | 3;
  seed: number;
  a0: number;
  a1: number;
  b: number;
  min: number;
  max: number;
}

/** What a NativeOp's `data` holds (native/binding/binding_comm.cc parses it). */
export interface NativeData {
  pattern: NativePattern;
  /** Fill the send buffer with `rank`'s input. */
  fill?: { rank: number };
  /** [length, terms, (rank, from) × terms, …] per segment, in order. */
  expect?: Float64Array;
  /** Written by the backend once the op has run: wrong elements (-1 before), lowest wrong index (-1: none). */
  result: Float64Array;
}

/**
 * patterns.ts' patternGenerator in data_program.h's terms; null for explicit values, which the
 * host fills and checks (the backend copies them to the device like any host-made data).
 */
export function nativePattern(p: DataPattern, dtype: Dtype): NativePattern | null {
  const none = { seed: 0, a0: 0, a1: 0, b: 0, min: 0, max: 0 };
  switch (p.kind) {
    case 'constant':
      return { ...none, kind: 0, a0: p.value };
    case 'rank':
      return { ...none, kind: 1, a0: p.offset ?? 0, a1: p.scale ?? 1 };
    case 'arange':
    case 'arange_rank':
      return { ...none, kind: 2, a0: p.start ?? 0, a1: p.rankStride ?? (p.kind === 'arange_rank' ? 1 : 0), b: p.step ?? 1 };
    case 'random': {
      const { min, max } = randomRange(p, dtype);
      return { ...none, kind: 3, seed: p.seed >>> 0, min, max };
    }
    case 'values':
      return null;
  }
}

/** Whether a buffer of `dtype` and `count` elements has its data made by a backend that can. */
export const backendMakesData = (dtype: Dtype, count: number): boolean =>
  BACKEND_DATA_DTYPES.has(dtype) && count >= BACKEND_DATA_MIN_ELEMENTS;

/**
 * The check program of an output described lazily, or null where it is not made of `pattern`'s
 * runs (then the host checks it). Bounded by the segments a collective has (a few per rank).
 */
export function expectProgram(e: Lazy, pattern: DataPattern): Float64Array | null {
  if (!e.segments || e.segments.length === 0) return null;
  const out: number[] = [];
  for (const s of e.segments) {
    if (s.terms.some((t) => t.pattern !== pattern)) return null;
    out.push(s.length, s.terms.length, ...s.terms.flatMap((t) => [t.rank, t.from]));
  }
  return Float64Array.from(out);
}
