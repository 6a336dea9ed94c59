// Which transfer a multiply on another stream follows (EnqueueOptions.gemmFollows): nccl then
// launches that multiply as the transfer's ranks line up, where the transfer runs no kernel
// (native/nccl/gemm_handoff.h), so that the two start together.
import { rankStep } from '../shared/plan/per-rank.js';
import type { Plan, PlanStep } from '../shared/plan/types.js';

/**
 * Whether the next op `rank` enqueues after `step`'s timed run is a multiply on another stream
 * that overlaps it: `step` is async in a compare block, and the block's next step is this rank's
 * compute on another stream. The executor enqueues that compute right after (nothing awaits an
 * async step), so the transfer's thread can wait for it before lining up.
 */
export function gemmFollows(plan: Plan, step: PlanStep, rank: number): boolean {
  const o = step.origin;
  const next = plan.steps[step.index + 1];
  if (o.kind !== 'compare' || !step.async || !next || next.action.kind !== 'compute') return false;
  const n = next.origin;
  if (n.kind !== 'compare' || n.compare !== o.compare || n.variant !== o.variant || n.repeat !== o.repeat) return false;
  const mine = rankStep(next, rank);
  return mine !== null && mine.stream !== step.stream;
}
