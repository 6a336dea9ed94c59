// The run's failure: the first one wins (a rank's, the watchdog's, a stop), and ends every rank —
// told to abort at once, killed once the grace is over. A failure a rank reported gets every rank's
// last call in its message at the end, when all of them are in: one list, not a first one (in the
// log, said as it failed) that the end's would contradict.
import type { Plan } from '../../../../shared/plan/types.js';
import type { RunError } from '../../../../shared/run/record/record.js';

export class RunFailure {
  private current: RunError | null = null;
  /** The user's (or the lab's) stop, not a fault: the run is aborted, its steps in flight stopped. */
  stopped = false;
  /** When the run failed, CLOCK_MONOTONIC ns: where its steps in flight end on the timeline. */
  atNs: number | null = null;
  /** The message a rank gave, which gets the ranks' last calls at the end. */
  private rankMessage: string | null = null;
  private killAtMs: number | null = null;

  constructor(
    private readonly plan: Plan,
    private readonly abortGraceMs: number,
  ) {}

  get error(): RunError | null {
    return this.current;
  }

  /** The run fails (unless it failed already): the error to say, or null. */
  fail(rank: number | null, step: number | null, code: string, message: string, nowNs: number): RunError | null {
    if (this.current) return null;
    this.atNs = nowNs;
    this.killAtMs = nowNs / 1e6 + this.abortGraceMs;
    this.current = { rank, step, stepLabel: step === null ? null : (this.plan.steps[step]?.label ?? null), code, message };
    return this.current;
  }

  /** A failure a rank reported (its message ends with every rank's last calls, at the end). */
  failRank(rank: number, step: number | null, code: string, message: string, nowNs: number): RunError | null {
    const error = this.fail(rank, step, code, message, nowNs);
    if (error) this.rankMessage = message;
    return error;
  }

  /** True once, when the ranks' grace after the abort is over. */
  killDue(nowMs: number): boolean {
    if (this.killAtMs === null || nowMs < this.killAtMs) return false;
    this.killAtMs = null;
    return true;
  }

  /** At the end: a rank's message with every rank's last calls (`lastCalls`), now that all are in. */
  close(lastCalls: string): void {
    this.killAtMs = null;
    if (this.current && this.rankMessage !== null) this.current = { ...this.current, message: this.rankMessage + lastCalls };
  }
}
