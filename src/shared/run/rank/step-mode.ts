// Step mode: a run that waits before each step until the learner asks for it, so they can predict
// the result first. The rank processes and the core both ask here which steps pause.
import { COLLECTIVE_DESCRIPTORS } from '../../ops/index.js';
import { takesPart } from '../../plan/per-rank.js';
import type { PlanStep } from '../../plan/types.js';
import { formatValues, inputLength, rankInput } from './inputs.js';

/**
 * Steps of a compare block run through without pausing: a pause inside the block would stand in
 * the block's measured time. Every other step pauses.
 */
export const pausesBefore = (step: PlanStep): boolean => step.origin.kind !== 'compare';

/**
 * What a paused run is about to do, for a learner to predict its result: the step, and each rank's
 * input (values, or their number when too many to show), e.g.
 * `step 2 of 5: all_reduce (sum, 3 × float32) · rank 0 [1, 2, 3] · rank 1 [2, 3, 4]`.
 */
export function pauseDescription(step: PlanStep, world: number, steps: number): string {
  const a = step.action;
  const d = a.kind === 'collective' ? COLLECTIVE_DESCRIPTORS[a.op] : null;
  const detail =
    a.kind === 'collective'
      ? [d!.reduces ? a.redop : null, d!.rooted ? `root ${a.root}` : null, `${a.count} × ${a.dtype}`]
      : a.kind === 'p2p'
        ? [`rank ${a.from} → rank ${a.to}`, `${a.count} × ${a.dtype}`]
        : [];
  const shown = detail.filter((x) => x !== null);
  const what = shown.length ? `${step.label} (${shown.join(', ')})` : step.label;
  const inputs = Array.from({ length: world }, (_, r) => r)
    .filter((r) => takesPart(step, r) && inputLength(step, r, world) > 0)
    .map((r) => {
      const values = rankInput(step, r, world);
      return `rank ${r} ${values ? formatValues(values) : `${inputLength(step, r, world)} elements`}`;
    });
  return [`step ${step.index + 1} of ${steps}: ${what}`, ...inputs].join(' · ');
}
