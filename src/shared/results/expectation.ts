// A scenario that fails on purpose succeeds when it fails as meant: "expected failure seen". Two
// kinds of scenario do: one with steps marked "expect": "failure" (the mistakes gallery), and one
// whose pairs step injects faults (a broken link). One rule for both, decided from the finished
// run, the same way for a record made now and one replayed later.
import type { Plan, PlanStep } from '../plan/types.js';
import type { RunRecord, StepRecord } from '../run/record/record.js';

export interface Expectation {
  /** The steps meant to fail: marked "expect": "failure", or pairs with an injected fault. */
  steps: number[];
  /** Every failure meant was seen and nothing else failed. */
  met: boolean;
  note: string;
}

type Outcome = Pick<RunRecord, 'status' | 'error' | 'steps'>;

const SEEN = 'expected failure seen';
const NOT_SEEN = 'expected failure not seen';

const stepName = (plan: Plan, i: number) => `step ${i} (${plan.steps[i].label})`;
const result = (steps: number[], met: boolean, note: string): Expectation => ({ steps, met, note: `${met ? SEEN : NOT_SEEN}: ${note}` });

/** Marked steps: the run failed, not before the first of them, and none of them passed. */
function markedExpectation(plan: Plan, run: Outcome, steps: number[]): Expectation {
  const name = (i: number) => stepName(plan, i);
  const first = steps[0];
  if (run.status === 'aborted' || run.status === 'incomplete')
    return result(steps, false, `the run was stopped before the deliberate mistake in ${name(first)} could show`);
  const passed = steps.find((i) => run.steps.find((s) => s.index === i)?.verdict === 'pass');
  if (passed !== undefined) return result(steps, false, `${name(passed)} should have failed, but it passed`);
  if (run.status === 'passed') return result(steps, false, `${name(first)} should have failed, but the run passed`);
  const at = run.status === 'error' ? (run.error?.step ?? null) : (run.steps.find((s) => s.verdict === 'fail')?.index ?? null);
  if (at === null) return result(steps, false, 'the run failed before its steps ran');
  if (at < first) return result(steps, false, `the run failed in ${name(at)}, before the deliberate mistake in ${name(first)}`);
  return result(steps, true, `the deliberate mistake in ${name(first)} made the run fail${at === first ? '' : ` (in ${name(at)})`}`);
}

type PairStep = PlanStep & { action: Extract<PlanStep['action'], { kind: 'pair' }> };
const pairName = (s: PairStep) => `${s.action.from}${s.action.both ? '⇄' : '→'}${s.action.to}`;
const names = (pairs: string[]) =>
  pairs.length > 1 ? `s ${pairs.slice(0, -1).join(', ')} and ${pairs[pairs.length - 1]}` : ` ${pairs[0]}`;

/** Injected faults: every faulted pair failed by its fault, and nothing else failed. */
function faultExpectation(plan: Plan, run: Outcome, faulted: PairStep[]): Expectation {
  const steps = faulted.map((s) => s.index);
  if (run.status === 'aborted' || run.status === 'incomplete')
    return result(steps, false, 'the run was stopped before its injected faults could show');
  if (run.status === 'error')
    return result(
      steps,
      false,
      `the run failed${run.error?.step != null ? ` in ${stepName(plan, run.error.step)}` : ''}, not by an injected fault`,
    );
  const record = (i: number): StepRecord | undefined => run.steps.find((s) => s.index === i);
  const pairSteps = plan.steps.filter((s): s is PairStep => s.action.kind === 'pair');
  const realFailure = pairSteps.find((s) => {
    const r = record(s.index);
    return r?.verdict === 'error' && !r.pair?.error?.injected;
  });
  if (realFailure) return result(steps, false, `the pair ${pairName(realFailure)} failed without an injected fault`);
  const wrong = run.steps.find((s) => s.verdict === 'fail');
  if (wrong) return result(steps, false, `${stepName(plan, wrong.index)} found wrong values`);
  const pairs = [...new Set(faulted.map(pairName))];
  const broken = new Set(faulted.filter((s) => record(s.index)?.pair?.error?.injected).map(pairName));
  const unbroken = pairs.find((p) => !broken.has(p));
  if (unbroken) return result(steps, false, `the pair ${unbroken} has an injected fault but did not fail`);
  return result(steps, true, `the injected fault${pairs.length > 1 ? 's' : ''} broke the pair${names(pairs)}, and nothing else failed`);
}

export function expectationOf(plan: Plan, run: Outcome): Expectation | undefined {
  const marked = plan.steps.filter((s) => s.expect === 'failure').map((s) => s.index);
  if (marked.length) return markedExpectation(plan, run, marked);
  const faulted = plan.steps.filter((s): s is PairStep => s.action.kind === 'pair' && s.action.fault !== null);
  return faulted.length ? faultExpectation(plan, run, faulted) : undefined;
}

/**
 * A run's status as every view says it (the run's line, Saved runs, the Results): a run meant to
 * fail reads by whether it failed as meant: passed where it did, failed where it passed instead.
 */
export function shownStatus(record: { status: string; expectation?: Pick<Expectation, 'met'> }): string {
  const e = record.expectation;
  return e?.met ? 'passed' : e && record.status === 'passed' ? 'failed' : record.status;
}

/** What `clab run` and `clab replay` exit 0 for: a run that passed, or one that failed where it was meant to. */
export const runSucceeded = (record: Pick<RunRecord, 'status' | 'expectation'>): boolean => shownStatus(record) === 'passed';
