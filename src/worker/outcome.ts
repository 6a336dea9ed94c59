// What running one step gave this rank, before it is reported: the executor's steps and the pair
// runner's alike.
import type { CheckResult } from '../shared/data/check.js';
import type { TimelineEvent } from '../shared/run/rank/protocol.js';
import type { NativeTimes } from '../addon/native-api.js';
import type { NcclStepInfo } from '../shared/run/nccl/nccl-step-info.js';
import type { PreparedCall } from './buffers.js';
import { checkCall, previewTensor } from './output.js';

export interface Outcome {
  /** Checking is deferred, so that inside a timed compare block it runs after the block's clock stops. */
  checks: () => { check: CheckResult; preview: string | null }[];
  timed: NativeTimes | null;
  events: TimelineEvent[];
  note: string | null;
  /** This rank's inputs as a learner reads them (small tensors), one per call. */
  inputs?: (string | null)[];
  /** The step failed on this rank and the run goes on (a pair of a pairs step). */
  error?: { code: string; message: string };
  /** What NCCL chose for the step's calls, from the profiler plug-in (nccl-profile.ts). */
  nccl?: NcclStepInfo;
}

/** Checks each call that has an output on this rank against its expected value, when called. */
export function checksOf(calls: PreparedCall[]): Outcome['checks'] {
  return () =>
    calls.flatMap((c) => {
      const expected = c.output && c.expected();
      return expected ? [{ check: checkCall(c, expected), preview: previewTensor(c.output!, c.listEntry) }] : [];
    });
}

/** A step that failed on this rank while the run goes on: its error, and the slices it had before. */
export function failedOutcome(error: { code: string; message: string }, events: TimelineEvent[] = []): Outcome {
  return { checks: () => [], timed: null, events, note: null, error };
}
