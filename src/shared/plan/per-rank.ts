// A step as one rank runs it: the step's action, or what the plan gives that rank instead (a
// deliberate mistake, scenario key `perRank`). Every place that asks what a rank does in a step
// (the rank process, the core's participants and watchdog, the memory estimate) asks here.
import { involves } from './compile.js';
import type { Plan, PlanAction, PlanStep } from './types.js';

/** The action `rank` runs in `step`; null where it skips the step. */
export function rankAction(step: PlanStep, rank: number): PlanAction | null {
  const own = step.perRank?.find((p) => p.rank === rank);
  return own ? own.action : step.action;
}

/** The step with `rank`'s own action in place of the step's, or null where the rank does not take part. */
export function rankStep(step: PlanStep, rank: number): PlanStep | null {
  const action = rankAction(step, rank);
  if (action === null || !involves(action, rank)) return null;
  return action === step.action ? step : { ...step, action };
}

export const takesPart = (step: PlanStep, rank: number): boolean => rankStep(step, rank) !== null;

/** The CUDA device `rank` runs on: the scenario's `world.devices`, else the rank's own number. */
export const rankDevice = (plan: Pick<Plan, 'devices'>, rank: number): number => plan.devices?.[rank] ?? rank;
