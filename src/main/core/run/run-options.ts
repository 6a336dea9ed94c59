// What a run is asked for (LabRun's options) and what it tells as it goes (its events).
import type { Plan } from '../../../shared/plan/types.js';
import type { BackendName, TimelineEvent } from '../../../shared/run/rank/protocol.js';
import type { LogLine, RunError, StepRecord } from '../../../shared/run/record/record.js';
import type { RankSource } from './workers.js';

export interface RunOptions {
  plan: Plan;
  backend: BackendName;
  backendNote?: string | null;
  scenario: unknown;
  /** The scenario's text as given (kept in the record for a replay to open as written). */
  scenarioText?: string;
  scenarioFile: string | null;
  workerEntry?: string;
  /** How long ranks may take to start and join before the run fails. */
  startTimeoutMs?: number;
  /** How long ranks get to exit after an abort before they are killed. */
  abortGraceMs?: number;
  /** How long ranks get to exit after every rank was done (coordinator.ts's LEAVE_GRACE_MS by default). */
  leaveGraceMs?: number;
  env?: NodeJS.ProcessEnv;
  /** When the run was asked for (names its record file); now by default. */
  createdAt?: Date;
  /** Step mode: ranks wait before each step (learn/step-mode.ts) until next(). */
  stepMode?: boolean;
  /** Where the ranks come from: forked here by default, or joined from a launcher (hosts/listener.ts). */
  ranks?: RankSource;
  /** The NCCL library the run names (--nccl; checked by start-run.ts): forked ranks load it (CLAB_NCCL_LIBRARY). */
  ncclLibrary?: string;
}

export interface RunEvents {
  log: [LogLine];
  step: [StepRecord];
  progress: [{ done: number; total: number; step: StepRecord; events: TimelineEvent[] }];
  failure: [RunError];
  /** Step mode: every rank still running waits; `step` is the one next() runs. */
  paused: [{ step: number }];
  /** A line from the lab that every door shows as it comes (where to start the workers, who joined). */
  notice: [string];
}
