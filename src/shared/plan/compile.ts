// Scenario → plan: applies defaults, expands sweeps, pairs and compares, and checks everything
// that depends on the world size (roots, peers, divisibility), reporting JSON paths. Each kind of
// step has its compiler in plan/steps/ (as each operation has its descriptor in ops/); they share
// the growing plan through a PlanBuilder (plan/builder.ts).
import type { JsonPath } from '../scenario/json-path.js';
import type { Scenario } from '../scenario/schema.js';
import { PlanBuilder } from './builder.js';
import { compileBasic } from './steps/basic.js';
import { compileCompare } from './steps/compare.js';
import { compilePairs } from './steps/pairs.js';
import { compileSweep } from './steps/sweep.js';
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
  scenario.steps.forEach((s, i) => {
    const path: JsonPath = ['steps', i];
    switch (s.op) {
      case 'sweep':
        return compileSweep(b, path, s);
      case 'pairs':
        return compilePairs(b, path, s);
      case 'compare':
        return compileCompare(b, path, s);
      default:
        return compileBasic(b, { path, origin: { kind: 'step' }, prefix: '' }, s);
    }
  });
  return b.finish();
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
