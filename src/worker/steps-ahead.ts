// Large plain steps run one ahead: a step's buffers are made and its calls enqueued while the step
// before it still runs (the stream keeps their order), so the host's work between two steps — the
// one's result read, checked and sent to the core, the next one's buffers made — lies beside the
// GPU's work instead of in a gap between them (issue 39: 0.36 s of a 280-step sweep's 2.7 s of
// steps on 2 × H200, a median 0.59 ms per step, CLAB_TRACE_JOBS=1). CLAB_STEPS_AHEAD=0 runs every
// step after the one before it has ended.
import { actionBytes } from '../shared/run/record/aggregate.js';
import type { PlanStep } from '../shared/plan/types.js';
import type { NativeComm } from '../addon/native-api.js';

/** Steps that may run one ahead of the next. */
const AHEAD = new Set<PlanStep['action']['kind']>(['collective', 'p2p', 'group']);

/**
 * The least a step moves to run ahead, or to have one run ahead of it: the host's work runs while
 * both steps' loops are issued (the next one's buffers beside this one's, this one's report beside
 * the next one's). Below some 1 MiB a loop waits for its host thread's calls (an NCCL call takes
 * 6–10 µs of it), so another thread at work beside it would be in the loop's time; from 4 MiB a call
 * keeps the GPU busy several times as long as it takes to issue.
 */
export const AHEAD_MIN_BYTES = 4 * 2 ** 20;

/**
 * Whether `step` may be enqueued while the step before it runs, as far as the step itself says: a
 * collective, p2p or group outside compare blocks, not async, of AHEAD_MIN_BYTES or more. The
 * executor adds what its state says (nothing async in flight, no learner to wait for, the step
 * before it on the same stream: another stream's thread would run the two side by side).
 */
export function runsAhead(step: PlanStep, world: number): boolean {
  return step.origin.kind !== 'compare' && !step.async && AHEAD.has(step.action.kind) && actionBytes(step.action, world) >= AHEAD_MIN_BYTES;
}

/**
 * Whether a rank's steps may run ahead at all: on a GPU (on cpu the host does the op itself), without
 * the lab's NCCL plug-ins (a step's last channel ends, which the proxy thread records late, would
 * come while the next step's loop has them paused), and unless CLAB_STEPS_AHEAD=0.
 */
export function aheadAllowed(comm: Pick<NativeComm, 'device'> | null, ncclProfile: unknown): boolean {
  return process.env.CLAB_STEPS_AHEAD !== '0' && comm?.device !== undefined && !ncclProfile;
}

/** The step a rank's failure belongs to, where the error was raised by a step awaited after a later one began. */
export function failedStep(e: unknown): number | null {
  const step = (e as { clabStep?: unknown } | null)?.clabStep;
  return typeof step === 'number' ? step : null;
}

/** Awaits a step that ran ahead; its error names that step (failedStep), not the one begun after it. */
export async function settled(a: { step: number; done: Promise<void> }): Promise<void> {
  try {
    await a.done;
  } catch (e) {
    if (e !== null && typeof e === 'object' && failedStep(e) === null) Object.assign(e, { clabStep: a.step });
    throw e;
  }
}
