// Explicit input values (the `values` data kind): the numbers a torch script would put in its
// tensors, written in the scenario, for every rank alike, as one chunk per destination rank
// (scatter's scatter_list, all_to_all's input list), or per rank. The expected output of every
// op is computed from them as from any pattern (patterns.ts' generator reads them).
import type { Dtype } from './dtypes.js';

/** A rank's input: a flat list, or `world` chunks one after the other. */
export type ValueList = number[] | number[][];

export type ValuesPattern = {
  kind: 'values';
  /** Every rank's input. */
  values?: number[];
  /** Every rank's input as world chunks, chunk j for rank j. */
  chunks?: number[][];
  /** Rank r's input is perRank[r] (flat, or chunks). */
  perRank?: ValueList[];
};

const isChunks = (list: ValueList): list is number[][] => list.length > 0 && Array.isArray(list[0]);

/** The numbers of a list, chunks one after the other. */
const flat = (list: ValueList): number[] => (isChunks(list) ? list.flat() : (list as number[]));

const flattened = new WeakMap<ValuesPattern, number[][]>();

/** `rank`'s input values, flattened once per pattern (a window is read many times). */
export function valuesOfRank(p: ValuesPattern, rank: number): readonly number[] {
  let lists = flattened.get(p);
  if (!lists) {
    lists = p.perRank ? p.perRank.map(flat) : [p.chunks ? p.chunks.flat() : (p.values ?? [])];
    flattened.set(p, lists);
  }
  return (p.perRank ? lists[rank] : lists[0]) ?? [];
}

/** How many numbers the pattern holds. */
export const valuesCount = (p: ValuesPattern): number =>
  p.perRank ? p.perRank.reduce((n, l) => n + flat(l).length, 0) : (p.chunks ?? [p.values ?? []]).reduce((n, l) => n + l.length, 0);

/** The numbers `dtype` holds exactly as written (integers) or without overflowing (floats). */
const RANGES: Record<Dtype, { min: number; max: number; integer: boolean }> = {
  float32: { min: -3.4028234663852886e38, max: 3.4028234663852886e38, integer: false },
  float64: { min: -Number.MAX_VALUE, max: Number.MAX_VALUE, integer: false },
  float16: { min: -65504, max: 65504, integer: false },
  bfloat16: { min: -3.3895313892515355e38, max: 3.3895313892515355e38, integer: false },
  float8_e4m3: { min: -448, max: 448, integer: false },
  float8_e5m2: { min: -57344, max: 57344, integer: false },
  int8: { min: -128, max: 127, integer: true },
  uint8: { min: 0, max: 255, integer: true },
  int32: { min: -(2 ** 31), max: 2 ** 31 - 1, integer: true },
  uint32: { min: 0, max: 2 ** 32 - 1, integer: true },
  // JSON numbers are doubles: beyond 2^53 a written integer is not the one read.
  int64: { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER, integer: true },
  uint64: { min: 0, max: Number.MAX_SAFE_INTEGER, integer: true },
};

/** Why `x` does not fit `dtype`, or null. */
export function valueMisfit(x: number, dtype: Dtype): string | null {
  const r = RANGES[dtype];
  const text = (n: number) => (r.integer ? String(n) : String(Number(n.toPrecision(8))));
  const range = `${text(r.min)}…${text(r.max)}`;
  if (r.integer && !Number.isInteger(x)) return `${x} is not an integer: ${dtype} holds integers in ${range}`;
  if (x < r.min || x > r.max)
    return `${x} does not fit ${dtype}: expected ${r.integer ? 'an integer' : 'a number'} in ${range}${
      dtype === 'int64' || dtype === 'uint64' ? ' (a JSON number is exact up to 2^53)' : ''
    }`;
  return null;
}

export interface ValuesUse {
  dtype: Dtype;
  world: number;
  /** Elements of `rank`'s input (send buffer) in this step; 0 where it sends nothing. */
  inputLength(rank: number): number;
  /** The op's input is world chunks, chunk j for rank j (scatter, all_to_all, reduce_scatter, …). */
  chunked: boolean;
  /** The op as a learner reads it, e.g. "scatter (count 2, root 0)". */
  what: string;
}

export interface ValuesIssue {
  /** Relative to the pattern. */
  path: (string | number)[];
  message: string;
}

/** Misfit numbers reported per list: the first few say what is wrong. */
const MISFITS_SHOWN = 3;

/**
 * What is wrong with explicit values used by one step: list and chunk lengths against the step's
 * input sizes, the per-rank list against the world, each number against the dtype.
 */
export function valuesIssues(p: ValuesPattern, use: ValuesUse): ValuesIssue[] {
  const issues: ValuesIssue[] = [];
  const lengths = Array.from({ length: use.world }, (_, r) => use.inputLength(r));
  const longest = Math.max(0, ...lengths);
  const senders = lengths.map((n, r) => (n > 0 ? r : -1)).filter((r) => r >= 0);
  const sendersText =
    senders.length === use.world ? 'every rank' : senders.length === 1 ? `rank ${senders[0]}` : `ranks ${senders.join(', ')}`;

  const misfits = (list: number[], path: (string | number)[]) => {
    let shown = 0;
    for (let i = 0; i < list.length && shown < MISFITS_SHOWN; i++) {
      const why = valueMisfit(list[i], use.dtype);
      if (why) {
        issues.push({ path: [...path, i], message: why });
        shown++;
      }
    }
  };
  const chunkIssues = (chunks: number[][], length: number, path: (string | number)[], who: string) => {
    if (!use.chunked) {
      issues.push({
        path,
        message: `${use.what} takes one tensor, not a list of one chunk per rank: expected a flat list of ${length} numbers`,
      });
      return;
    }
    if (chunks.length !== use.world) {
      issues.push({
        path,
        message: `expected ${use.world} chunks, one per rank of the world (${who}'s input to ${use.what}); got ${chunks.length}`,
      });
      return;
    }
    const each = length / use.world;
    chunks.forEach((c, j) => {
      if (c.length !== each)
        issues.push({
          path: [...path, j],
          message: `expected ${each} numbers (chunk ${j}, for rank ${j}, of ${use.what}); got ${c.length}`,
        });
      misfits(c, [...path, j]);
    });
  };
  const listIssues = (list: ValueList, length: number, path: (string | number)[], who: string) => {
    if (isChunks(list)) return chunkIssues(list, length, path, who);
    if (list.length !== length) {
      const input =
        length === 0
          ? `${who} passes no input to ${use.what} (only ${sendersText} ${senders.length === 1 ? 'does' : 'do'}): expected []`
          : `${who}'s input to ${use.what} has ${length} elements: expected ${length} numbers`;
      issues.push({ path, message: `${input}; got ${list.length}` });
    }
    misfits(list as number[], path);
  };

  const who = senders.length === 1 ? `rank ${senders[0]}` : 'each rank';
  if (p.values) listIssues(p.values, longest, ['values'], who);
  if (p.chunks) chunkIssues(p.chunks, longest, ['chunks'], who);
  if (p.perRank) {
    if (p.perRank.length !== use.world) {
      issues.push({
        path: ['perRank'],
        message: `expected one list per rank: the world has ${use.world} rank${use.world === 1 ? '' : 's'}, perRank has ${p.perRank.length}`,
      });
    } else {
      p.perRank.forEach((list, r) => listIssues(list, lengths[r], ['perRank', r], `rank ${r}`));
    }
  }
  return issues;
}
