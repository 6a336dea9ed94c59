// Each rank's input to a step, from its data pattern, as the rank process fills it: what a
// learner sees before the step runs (step mode, the Learn view of a paused run).
import { formatScalar } from '../data/check.js';
import type { Scalar } from '../data/dtypes.js';
import { COLLECTIVE_DESCRIPTORS } from '../ops/index.js';
import { patternTensor } from '../data/patterns.js';
import { rankAction } from '../plan/per-rank.js';
import type { PlanStep } from '../plan/types.js';

/** Inputs longer than this are shown as chunk outlines, not values (the rank process's preview limit). */
export const INPUT_VALUES_LIMIT = 32;

/** Elements of `rank`'s send buffer in this step (0: it sends nothing). */
export function inputLength(step: PlanStep, rank: number, world: number): number {
  const a = rankAction(step, rank);
  if (a?.kind === 'collective') return COLLECTIVE_DESCRIPTORS[a.op].buffers({ count: a.count, world, rank, root: a.root }).send;
  if (a?.kind === 'p2p') return a.from === rank ? a.count : 0;
  return 0;
}

/** `rank`'s input values in this step; null where it has none or it is too long to show. */
export function rankInput(step: PlanStep, rank: number, world: number): Scalar[] | null {
  const a = rankAction(step, rank);
  const length = inputLength(step, rank, world);
  if (!a || (a.kind !== 'collective' && a.kind !== 'p2p') || length === 0 || length > INPUT_VALUES_LIMIT) return null;
  const t = patternTensor(a.data, rank, a.dtype, length);
  return Array.from({ length }, (_, i) => t.get(i));
}

export const formatValues = (values: Scalar[]): string => `[${values.map(formatScalar).join(', ')}]`;
