// Plain steps run one ahead: a step's buffers are made and its calls enqueued while the step
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
 * The least a step moves to run ahead, or to have one run ahead of it: none. The host's work runs
 * while both steps' loops are issued (the next one's buffers beside this one's, this one's report
 * beside the next one's), on another thread than the one issuing the loop. Below 1 MiB a loop waits
 * for that thread's calls (an NCCL call takes 6–10 µs of it), so the rule was 4 MiB until small
 * steps were timed both ways, ten ops 8 B … 2 MiB taking turns: each run's median time per op
 * below 64 KiB 9.52 µs with the rule (23 runs) against 9.46 µs without it (24; permutation test
 * p = 0.75; on another machine 8.55 against 8.97 µs, 15 and 16 runs, p = 0.31), while the GPU's idle
 * time in the sweep's steps fell from 222 to 92 ms (2 × H200, NCCL 2.28.3, 2026-11-28,
 * bench/gpu/README.md). CLAB_AHEAD_MIN_BYTES draws the line elsewhere, for comparing.
 */
export const AHEAD_MIN_BYTES = 0;

/** CLAB_AHEAD_MIN_BYTES (a number of bytes, 0 … 2^40; unset: AHEAD_MIN_BYTES), for comparing where the rule is drawn. */
export function aheadMinBytes(value: string | undefined): number {
  if (value === undefined || value === '') return AHEAD_MIN_BYTES;
  const n = /^\d{1,13}$/.test(value) ? Number(value) : NaN;
  if (!(n <= 2 ** 40)) throw new Error(`CLAB_AHEAD_MIN_BYTES must be a number of bytes, 0 … ${2 ** 40} (got ${JSON.stringify(value)})`);
  return n;
}

/**
 * Whether `step` may be enqueued while the step before it runs, as far as the step itself says: a
 * collective, p2p or group outside compare blocks, not async, of `minBytes` (AHEAD_MIN_BYTES) or more. The
 * executor adds what its state says (nothing async in flight, no learner to wait for, the step
 * before it on the same stream: another stream's thread would run the two side by side).
 */
export function runsAhead(step: PlanStep, world: number, minBytes = AHEAD_MIN_BYTES): boolean {
  return step.origin.kind !== 'compare' && !step.async && AHEAD.has(step.action.kind) && actionBytes(step.action, world) >= minBytes;
}

/**
 * Whether a rank's steps may run ahead at all: on a GPU (on cpu the host does the op itself), without
 * the lab's NCCL plug-ins (a step's last channel ends, which the proxy thread records late, would
 * come while the next step's loop has them paused), and unless CLAB_STEPS_AHEAD=0.
 */
export function aheadAllowed(comm: Pick<NativeComm, 'device'> | null, ncclProfile: unknown): boolean {
  return process.env.CLAB_STEPS_AHEAD !== '0' && comm?.device !== undefined && !ncclProfile;
}

/** Whether a rank's step may run ahead (runsAhead): never where aheadAllowed says no; a bad CLAB_AHEAD_MIN_BYTES throws. */
export function aheadRule(comm: Pick<NativeComm, 'device'> | null, ncclProfile: unknown): (step: PlanStep, world: number) => boolean {
  if (!aheadAllowed(comm, ncclProfile)) return () => false;
  const minBytes = aheadMinBytes(process.env.CLAB_AHEAD_MIN_BYTES);
  return (step, world) => runsAhead(step, world, minBytes);
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
