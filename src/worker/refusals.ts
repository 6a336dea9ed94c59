// Steps that every rank refuses alike before any call, the run going on: NCCL settings or windows
// that the loaded NCCL cannot run, and graph launch on a backend without CUDA graphs (auto fell
// back to cpu). Decided from the plan and the backend only, never from this rank's data.
import type { NativeComm } from '../addon/native-api.js';
import { GRAPH_LAUNCH_NEEDS } from '../shared/ops/launch.js';
import type { Plan, PlanStep } from '../shared/plan/types.js';
import { commSettingRefusal, windowRefusal } from '../shared/run/nccl/comm-settings.js';

/** Why this rank's backend cannot run `step`, or null where it can. */
export function stepRefusal(step: PlanStep, plan: Plan, comm: Pick<NativeComm, 'ncclVersion' | 'launchesGraphs'>): string | null {
  const version = comm.ncclVersion;
  if (version !== undefined) {
    const windows = step.registration === 'window' ? windowRefusal(version) : null;
    if (windows) return windows;
    const setting = step.comm !== undefined ? plan.comms?.[step.comm - 1] : undefined;
    const settings = setting ? commSettingRefusal(setting, version) : null;
    if (settings) return settings;
  }
  if (step.launch === 'graph' && !comm.launchesGraphs) return `${GRAPH_LAUNCH_NEEDS}; this rank's backend has none`;
  return null;
}
