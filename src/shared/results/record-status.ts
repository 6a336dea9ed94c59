// A saved run's status beside its steps. A run that finished without a run error has the status its
// steps give it (core/run/run.ts): failed where a step found wrong values or a pair failed, else
// passed. A record saying otherwise was edited by hand or pieced together from two; wherever a
// record is shown, its steps decide, and a notice names the file that said otherwise.
import { expectationOf } from './expectation.js';
import type { RunRecord, StepRecord } from '../run/record/record.js';

/** A step that fails the run it is in: wrong values, or a pair that failed (a refused step fails only itself). */
const failsTheRun = (s: StepRecord): boolean => s.verdict === 'fail' || (s.verdict === 'error' && Boolean(s.pair?.error));

export interface RecordAsShown {
  /** The record with the status its steps give it (and the expectation that status gives). */
  record: RunRecord;
  /** One line naming `file`, where the record's own status said otherwise; else null. */
  notice: string | null;
}

export function recordAsItsStepsSay(record: RunRecord, file: string): RecordAsShown {
  // A run that met an error, was stopped or is still being written (error, aborted, incomplete)
  // may be so with every step fine: only a finished run's status is its steps'.
  if (record.status !== 'passed' && record.status !== 'failed') return { record, notice: null };
  const failed = record.steps.filter(failsTheRun).length;
  const status = failed ? 'failed' : 'passed';
  if (status === record.status) return { record, notice: null };
  const shown: RunRecord = {
    ...record,
    status,
    expectation: expectationOf(record.plan, { status, error: record.error, steps: record.steps }),
  };
  if (!shown.expectation) delete shown.expectation;
  const steps = failed ? `${failed} of its ${record.steps.length} steps failed` : 'none of its steps failed';
  return {
    record: shown,
    notice: `${file}: the record's status is "${record.status}" but ${steps}; shown as ${status}, as its steps say`,
  };
}
