// A scenario that shows a deliberate mistake (steps marked "expect": "failure") succeeds when it
// fails there: "diagnosed as expected". Decided from the finished run, the same way for a record
// made now and one replayed later.
import type { Plan } from '../plan/types.js';
import type { RunRecord } from '../run/record.js';

export interface Expectation {
  /** The steps marked "expect": "failure". */
  steps: number[];
  /** The run failed, and not before the first of them, and none of them passed. */
  met: boolean;
  note: string;
}

type Outcome = Pick<RunRecord, 'status' | 'error' | 'steps'>;

export function expectationOf(plan: Plan, run: Outcome): Expectation | undefined {
  const steps = plan.steps.filter((s) => s.expect === 'failure').map((s) => s.index);
  if (steps.length === 0) return undefined;
  const name = (i: number) => `step ${i} (${plan.steps[i].label})`;
  const first = steps[0];
  const result = (met: boolean, note: string): Expectation => ({ steps, met, note });
  if (run.status === 'aborted' || run.status === 'incomplete') return result(false, `the run was stopped before the deliberate mistake in ${name(first)} could show`);
  const passed = steps.find((i) => run.steps.find((s) => s.index === i)?.verdict === 'pass');
  if (passed !== undefined) return result(false, `not as expected: ${name(passed)} should have failed, but it passed`);
  if (run.status === 'passed') return result(false, `not as expected: ${name(first)} should have failed, but the run passed`);
  const at = run.status === 'error' ? run.error?.step ?? null : run.steps.find((s) => s.verdict === 'fail')?.index ?? null;
  if (at === null) return result(false, `not as expected: the run failed before its steps ran`);
  if (at < first) return result(false, `not as expected: the run failed in ${name(at)}, before the deliberate mistake in ${name(first)}`);
  return result(true, `diagnosed as expected: the deliberate mistake in ${name(first)} made the run fail${at === first ? '' : ` (in ${name(at)})`}`);
}

/** What `clab run` and `clab replay` exit 0 for: a run that passed, or one that failed where it was meant to. */
export const runSucceeded = (record: Pick<RunRecord, 'status' | 'expectation'>): boolean =>
  record.expectation ? record.expectation.met : record.status === 'passed';
