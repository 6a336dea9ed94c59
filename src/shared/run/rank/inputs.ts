// Each rank's input to a step, from its data pattern, as the rank process fills it: what a
// learner sees before the step runs (step mode, the Learn view of a paused run).
import { formatScalar } from '../../data/check.js';
import type { Dtype, Scalar } from '../../data/dtypes.js';
import { COLLECTIVE_DESCRIPTORS } from '../../ops/index.js';
import { patternTensor, type DataPattern } from '../../data/patterns.js';
import { rankAction } from '../../plan/per-rank.js';
import type { PlanAction, PlanStep } from '../../plan/types.js';

/** Inputs longer than this are shown as chunk outlines, not values (the rank process's preview limit). */
export const INPUT_VALUES_LIMIT = 32;

type SendBuffer = { data: DataPattern; dtype: Dtype; count: number };

/** The buffers `rank` sends from in this step, one after the other (a group's sends, in order). */
function sendBuffers(a: PlanAction | null, rank: number, world: number): SendBuffer[] {
  switch (a?.kind) {
    case 'collective':
      return [{ ...a, count: COLLECTIVE_DESCRIPTORS[a.op].buffers({ count: a.count, world, rank, root: a.root }).send }];
    case 'p2p':
      return a.from === rank ? [a] : [];
    case 'pair':
      return a.from === rank || (a.both && a.to === rank) ? [a] : [];
    case 'group':
      return a.items.flatMap((item) => sendBuffers(item, rank, world));
    default:
      return [];
  }
}

/** Elements of `rank`'s send buffers in this step (0: it sends nothing). */
export function inputLength(step: PlanStep, rank: number, world: number): number {
  return sendBuffers(rankAction(step, rank), rank, world).reduce((n, b) => n + b.count, 0);
}

/**
 * `rank`'s input values in this step; null where it has none or it is too long to show, or where
 * a group's buffers differ in length (the Learn view cuts its input into equal chunks).
 */
export function rankInput(step: PlanStep, rank: number, world: number): Scalar[] | null {
  const buffers = sendBuffers(rankAction(step, rank), rank, world);
  const length = buffers.reduce((n, b) => n + b.count, 0);
  if (length === 0 || length > INPUT_VALUES_LIMIT || buffers.some((b) => b.count !== buffers[0].count)) return null;
  return buffers.flatMap((b) => {
    const t = patternTensor(b.data, rank, b.dtype, b.count);
    return Array.from({ length: b.count }, (_, i) => t.get(i));
  });
}

export const formatValues = (values: Scalar[]): string => `[${values.map(formatScalar).join(', ')}]`;
