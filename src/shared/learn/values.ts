// The values behind a move schedule's slots: each piece read from its rank's input, pieces in one
// slot reduced element by element the way the backends reduce. From the run's own inputs (the
// record's previews), so the Learn view shows what was reduced with what, and its final outputs
// can be held against the outputs the run recorded.
import { equalWithin, formatScalar, tolerance } from '../data/check.js';
import { isBigIntDtype, type Dtype, type Scalar } from '../data/dtypes.js';
import { reducer, type Redop } from '../data/reduce.js';
import { chunkRange, type MoveSchedule, type SlotContent } from './moves.js';

/** Reduces one element's values from the ranks in a slot; a partial avg (fewer than every rank) is a sum so far. */
export function slotReducer(dtype: Dtype, redop: Redop, world: number): (values: Scalar[]) => Scalar {
  const full = reducer(dtype, redop);
  const partial = redop === 'avg' ? reducer(dtype, 'sum') : full;
  return (values) => (values.length === world ? full(values) : values.length === 1 ? values[0] : partial(values));
}

/** A piece's elements from its rank's input; null where that input is unknown (a large tensor). */
export function pieceValues(s: MoveSchedule, inputs: (Scalar[] | null)[], rank: number, chunk: number): Scalar[] | null {
  const input = inputs[rank];
  if (!input) return null;
  const [start, end] = chunkRange(input.length, s.inputChunks[rank], chunk);
  return input.slice(start, end);
}

/** What a slot holds, element by element; null where a piece's input is unknown. */
export function slotValues(
  s: MoveSchedule,
  inputs: (Scalar[] | null)[],
  content: SlotContent,
  reduce: (values: Scalar[]) => Scalar,
): Scalar[] | null {
  const parts = content.map((p) => pieceValues(s, inputs, p.rank, p.chunk));
  if (parts.length === 0 || parts.some((p) => p === null)) return null;
  const known = parts as Scalar[][];
  if (known.length === 1) return known[0];
  return known[0].map((_, i) => reduce(known.map((p) => p[i])));
}

/** Each rank's output as the schedule computes it (its output slots one after the other); null where unknown or absent. */
export function outputValues(
  s: MoveSchedule,
  inputs: (Scalar[] | null)[],
  final: SlotContent[][],
  reduce: (values: Scalar[]) => Scalar,
): (Scalar[] | null)[] {
  return s.output.map((slots, rank) => {
    if (slots.length === 0) return null;
    const parts = slots.map((j) => slotValues(s, inputs, final[rank][j], reduce));
    return parts.some((p) => p === null) ? null : (parts as Scalar[][]).flat();
  });
}

const SCALAR = /^-?(?:\d+(?:\.\d*)?(?:e[-+]?\d+)?|inf|nan)$/i;

/**
 * A preview as the rank process writes it (`[1, 2, 3]`, `[[1, 1], [2, 2]]` for list outputs), as
 * values in order; null for anything else (objects, several calls joined with ` | `).
 */
export function parsePreview(text: string | null | undefined, dtype: Dtype): Scalar[] | null {
  if (!text || !text.startsWith('[') || text.includes('|')) return null;
  const tokens = text
    .replace(/[[\]]/g, ' ')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (!tokens.every((t) => SCALAR.test(t))) return null;
  return tokens.map((t) => {
    const lower = t.toLowerCase();
    if (lower === 'nan') return NaN;
    if (lower.endsWith('inf')) return lower.startsWith('-') ? -Infinity : Infinity;
    return isBigIntDtype(dtype) ? BigInt(t) : Number(t);
  });
}

/**
 * Whether a value computed here is the one a preview shows: previews give floats to 6 significant
 * digits (formatScalar), so a value within half the sixth digit of the shown one (plus the
 * dtype's tolerance, as the run's own check allows) is the same value.
 */
export function matchesPreview(dtype: Dtype, computed: Scalar, shown: Scalar): boolean {
  if (equalWithin(dtype, shown, computed)) return true;
  if (typeof computed === 'bigint' || typeof shown === 'bigint' || !Number.isFinite(shown) || !Number.isFinite(computed)) return false;
  if (formatScalar(computed) === formatScalar(shown)) return true;
  const halfSixthDigit = shown === 0 ? 0 : 0.5 * 10 ** (Math.floor(Math.log10(Math.abs(shown))) - 5);
  return Math.abs(computed - shown) <= halfSixthDigit + tolerance(dtype) * Math.max(1, Math.abs(shown));
}
