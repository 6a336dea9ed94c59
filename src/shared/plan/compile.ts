// Scenario → plan: applies defaults, expands sweeps, pairs and compares, and checks everything
// that depends on the world size (roots, peers, divisibility), reporting JSON paths. Each kind of
// step has its compiler in plan/steps/ (as each operation has its descriptor in ops/); they share
// the growing plan through a PlanBuilder (plan/builder.ts).
import type { Scenario, Step } from '../scenario/schema.js';
import { PlanBuilder, type StepAt } from './builder.js';
import { compileBarrier } from './steps/barrier.js';
import { compileCollective } from './steps/collective.js';
import { compileCompare } from './steps/compare.js';
import { compileCompute } from './steps/compute.js';
import { compileGroup } from './steps/group.js';
import { compileObject } from './steps/object.js';
import { compileP2p } from './steps/p2p.js';
import { compilePairs } from './steps/pairs.js';
import { compileSweep } from './steps/sweep.js';
import { compileWait } from './steps/wait.js';
import type { Plan, PlanAction } from './types.js';

export { MAX_STREAMS, PlanError, type PlanIssue } from './builder.js';
export { LATENCY_BYTES } from './steps/pairs.js';

export interface CompileOptions {
  /** Overrides the scenario's world (e.g. `clab run --ranks N`). */
  ranks?: number;
}

export function worldSize(scenario: Scenario, options: CompileOptions = {}): number {
  if (options.ranks !== undefined) return options.ranks;
  return scenario.world.ranks ?? scenario.world.devices?.length ?? 1;
}

export function compilePlan(scenario: Scenario, options: CompileOptions = {}): Plan {
  const devices = options.ranks === undefined ? (scenario.world.devices ?? null) : null;
  const b = new PlanBuilder(scenario, worldSize(scenario, options), devices);
  scenario.steps.forEach((s, i) => compileStep(b, { path: ['steps', i], origin: { kind: 'step' }, prefix: '' }, s));
  return b.finish();
}

/** Each kind of step to its compiler (a compare step's variants come back here for theirs). */
function compileStep(b: PlanBuilder, at: StepAt, s: Step): void {
  switch (s.op) {
    case 'sweep':
      return compileSweep(b, at.path, s);
    case 'pairs':
      return compilePairs(b, at.path, s);
    case 'compare':
      return compileCompare(b, at.path, s, compileStep);
    case 'send':
    case 'recv':
      return compileP2p(b, at, s);
    case 'barrier':
      return compileBarrier(b, at, s);
    case 'wait':
      return compileWait(b, at, s);
    case 'compute':
      return compileCompute(b, at, s);
    case 'group':
      return compileGroup(b, at, s);
    case 'broadcast_object':
    case 'all_gather_object':
    case 'gather_object':
    case 'scatter_object':
      return compileObject(b, at, s);
    default:
      return compileCollective(b, at, s);
  }
}

/** Does `rank` take part in this step? (p2p and compute involve some ranks only.) */
export function involves(action: PlanAction, rank: number): boolean {
  switch (action.kind) {
    case 'p2p':
      return action.from === rank || action.to === rank;
    case 'pair':
      // A copy is made by the sender's process alone (into the receiver's GPU).
      return action.from === rank || (action.to === rank && action.measure !== 'copy');
    case 'group':
      return action.items.some((item) => item.kind !== 'p2p' || item.from === rank || item.to === rank);
    case 'compute':
      return action.ranks === null || action.ranks.includes(rank);
    default:
      return true;
  }
}

/**
 * Streams that carry communication and never a compute step: the nccl backend creates them at
 * the GPU's highest priority, as training frameworks do for NCCL, so that an overlapped transfer
 * is not queued behind a GEMM that took every SM first. As a bit mask (bit i = stream i).
 */
export function communicationOnlyStreams(plan: Plan): number {
  let comm = 0;
  let compute = 0;
  for (const s of plan.steps) {
    const bit = 1 << s.stream;
    const kind = s.action.kind;
    if (kind === 'compute') compute |= bit;
    else if (kind === 'collective' || kind === 'p2p' || kind === 'group' || kind === 'object') comm |= bit;
  }
  return comm & ~compute;
}
