// Steps that every rank refuses alike before any call, the run going on: NCCL settings or windows
// that the loaded NCCL cannot run, and graph launch on a backend without CUDA graphs (auto fell
// back to cpu). Decided from the plan and the backend only, never from this rank's data.
import type { NativeComm } from '../addon/native-api.js';
import { GRAPH_LAUNCH_NEEDS } from '../shared/ops/launch.js';
import type { Plan, PlanStep } from '../shared/plan/types.js';
import { commSettingRefusal, windowRefusal } from '../shared/run/nccl/comm-settings.js';
import { takesPart } from '../shared/plan/per-rank.js';

/** The ranks of the world with no part in `step` (the first four), from the plan's own step. */
function idleRanks(step: PlanStep, plan: Plan): number[] {
  const whole = plan.steps[step.index] ?? step;
  const idle: number[] = [];
  for (let r = 0; r < plan.world && idle.length < 4; r++) if (!takesPart(whole, r)) idle.push(r);
  return idle;
}

/**
 * Why a step that needs every rank of its communicator cannot run in this plan (`what` says why it
 * needs them), naming the ranks with no part in it; null where every rank takes part. Such a rank
 * would leave the others waiting in NCCL for ever.
 */
function everyRankRefusal(step: PlanStep, plan: Plan, what: string): string | null {
  const idle = idleRanks(step, plan);
  if (idle.length === 0) return null;
  const who = idle.length === 1 ? `rank ${idle[0]} takes` : `ranks ${idle.join(', ')}${idle.length === 4 ? ' …' : ''} take`;
  return `${what}, and ${who} no part in this step: the others would wait for ${idle.length === 1 ? 'it' : 'them'} for ever. Give every rank of the world a part in the step, or run it without that`;
}

const WINDOWS_NEED_EVERY_RANK =
  'its buffers are registered as NCCL windows (symmetric memory), which NCCL does as a collective of every rank of the communicator (ncclCommWindowRegister)';
// Seen on NCCL 2.30.7 (4 × H100 and 4 × H200, 2026-11-28): overlap-gpu's zero-SM variant, a send
// 0 → 1, never ended on 3 or 4 ranks (ranks 0 and 1 stayed in NCCL), and ran on 2.
const ZERO_SM_NEEDS_EVERY_RANK =
  "it runs on a communicator with NCCL's zero-SM policy (ctaPolicy zero), whose copy-engine path NCCL sets up with every rank of the communicator";

/** Why this rank's backend cannot run `step`, or null where it can. */
export function stepRefusal(step: PlanStep, plan: Plan, comm: Pick<NativeComm, 'ncclVersion' | 'launchesGraphs'>): string | null {
  const version = comm.ncclVersion;
  if (version !== undefined) {
    const windows =
      step.registration === 'window' ? (windowRefusal(version) ?? everyRankRefusal(step, plan, WINDOWS_NEED_EVERY_RANK)) : null;
    if (windows) return windows;
    const setting = step.comm !== undefined ? plan.comms?.[step.comm - 1] : undefined;
    const settings = setting ? commSettingRefusal(setting, version) : null;
    if (settings) return settings;
    const zeroSm = setting?.ctaPolicy === 'zero' ? everyRankRefusal(step, plan, ZERO_SM_NEEDS_EVERY_RANK) : null;
    if (zeroSm) return zeroSm;
  }
  if (step.launch === 'graph' && !comm.launchesGraphs) return `${GRAPH_LAUNCH_NEEDS}; this rank's backend has none`;
  return null;
}
