// Plain steps run one ahead of large ones: a step's buffers are made and its calls enqueued while
// the step before it still runs (the stream keeps their order), so the host's work between two steps — the
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
 * The least a step moves for the next one to run ahead of it: from 4 MiB a call keeps the GPU busy
 * several times as long as it takes to issue, so the next step's calls are issued beside its loop
 * (and its own report beside them) without either one's loop waiting for a host thread. Below some
 * 1 MiB a loop waits for its host thread's calls (an NCCL call takes 6–10 µs of it), so a step that
 * small runs nothing ahead of itself; it may run ahead of a larger one, where its first call's NCCL
 * connections (the first all_to_all's p2p channels: 183 ms of a sweep on 2 × H200) are made while
 * the step before it runs.
 */
export const AHEAD_MIN_BYTES = 4 * 2 ** 20;

/** The step in flight while the next one is enqueued. */
export interface AheadStep {
  step: number;
  stream: number;
  done: Promise<void>;
  /** The next step may run ahead of it (leadsAhead). */
  leads: boolean;
}

/** A step that may run ahead, or have one run ahead of it: a collective, p2p or group outside compare blocks, not async. */
export function plainStep(step: PlanStep): boolean {
  return step.origin.kind !== 'compare' && !step.async && AHEAD.has(step.action.kind);
}

/** Whether the next step may be enqueued while `step` runs: a plain step of AHEAD_MIN_BYTES or more. */
export function leadsAhead(step: PlanStep, world: number): boolean {
  return plainStep(step) && actionBytes(step.action, world) >= AHEAD_MIN_BYTES;
}

/**
 * How `step` runs beside the step in flight (`inFlight`), where the executor's state leaves it
 * `free` to (nothing async in flight, no learner to wait for, no variant's communicator):
 * `behind`, enqueued while the one in flight still runs (a plain step on the same stream behind
 * one that leads: another stream's thread would run the two side by side); `leads`, the next one may
 * run ahead of it. A step that does either stays in flight once enqueued.
 */
export function aheadPlan(step: PlanStep, world: number, inFlight: AheadStep | null, free: boolean): { behind: boolean; leads: boolean } {
  if (!free || !plainStep(step)) return { behind: false, leads: false };
  return { behind: inFlight?.leads === true && inFlight.stream === step.stream, leads: leadsAhead(step, world) };
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
