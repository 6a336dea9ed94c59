// Steps that every rank refuses alike before any call, the run going on: NCCL settings or windows
// that the loaded NCCL cannot run, and graph launch on a backend without CUDA graphs (auto fell
// back to cpu). Decided from the plan and the backend only, never from this rank's data.
import type { NativeComm } from '../addon/native-api.js';
import { GRAPH_LAUNCH_NEEDS } from '../shared/ops/launch.js';
import type { Plan, PlanStep } from '../shared/plan/types.js';
import { commSettingRefusal, windowRefusal } from '../shared/run/nccl/comm-settings.js';
import { takesPart } from '../shared/plan/per-rank.js';

/**
 * Why a step whose buffers are registered as windows cannot run in this plan: NCCL registers them
 * as a collective of every rank of the communicator (ncclCommWindowRegister; the run's, or one
 * split off it with every rank), so a rank with no part in the step would leave the others waiting
 * in it for ever. Null where every rank takes part.
 */
function windowPartRefusal(step: PlanStep, plan: Plan): string | null {
  const whole = plan.steps[step.index] ?? step;
  const idle: number[] = [];
  for (let r = 0; r < plan.world && idle.length < 4; r++) if (!takesPart(whole, r)) idle.push(r);
  if (idle.length === 0) return null;
  const who = idle.length === 1 ? `rank ${idle[0]} takes` : `ranks ${idle.join(', ')}${idle.length === 4 ? ' …' : ''} take`;
  return (
    `its buffers are registered as NCCL windows (symmetric memory, or the zero-SM policy), which NCCL does as a collective of every rank of the communicator (ncclCommWindowRegister), ` +
    `and ${who} no part in this step: the others would wait for ${idle.length === 1 ? 'it' : 'them'} for ever. Give every rank of the world a part in the step, or run it without windows`
  );
}

/** Why this rank's backend cannot run `step`, or null where it can. */
export function stepRefusal(step: PlanStep, plan: Plan, comm: Pick<NativeComm, 'ncclVersion' | 'launchesGraphs'>): string | null {
  const version = comm.ncclVersion;
  if (version !== undefined) {
    const windows = step.registration === 'window' ? (windowRefusal(version) ?? windowPartRefusal(step, plan)) : null;
    if (windows) return windows;
    const setting = step.comm !== undefined ? plan.comms?.[step.comm - 1] : undefined;
    const settings = setting ? commSettingRefusal(setting, version) : null;
    if (settings) return settings;
  }
  if (step.launch === 'graph' && !comm.launchesGraphs) return `${GRAPH_LAUNCH_NEEDS}; this rank's backend has none`;
  return null;
}
