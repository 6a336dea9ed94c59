// What the coordinator asks its driver to do (run.ts carries them out, in order): it decides, the
// driver sends, emits and kills. Nothing here reaches a process, a clock or a timer.
import type { CoreToWorker } from '../../../../shared/run/rank/protocol.js';
import type { LogLine, RunError } from '../../../../shared/run/record/record.js';
import type { StepDone } from './steps.js';
import type { CheckedTopology } from '../../../../shared/run/rank/topology.js';

export type Effect =
  /** A message to each of `ranks` that has a link (none before the ranks are there). */
  | { kind: 'send'; ranks: readonly number[]; message: CoreToWorker }
  /** A line of the run's log, kept in the record already. */
  | { kind: 'log'; line: LogLine }
  /** A step ended on every rank in it: its record, with the events its ranks sent for it. */
  | ({ kind: 'step-done' } & StepDone)
  | { kind: 'failure'; error: RunError }
  /** Step mode: every rank still running waits before `step`. */
  | { kind: 'paused'; step: number }
  /** Every rank process ends now: the abort's grace is over. */
  | { kind: 'kill' }
  /** No rank joins any more (a stop while the ranks were still coming). */
  | { kind: 'close'; reason: string }
  /** The GPUs as the rank asked for them sees them (the record's environment). */
  | { kind: 'topology'; topology: CheckedTopology }
  /** Every rank is done and the run did not fail: its record is the answer, while the rank processes end. */
  | { kind: 'answer' }
  /** The run is over: its record can be made. */
  | { kind: 'end' };

/** How a rank's link ended: its exit code or signal, or, for a rank on another host, why the link was lost. */
export interface RankExit {
  code: number | null;
  signal: string | null;
  lost?: string;
}
