import { describe, expect, it } from 'vitest';
import { expectationOf, runSucceeded } from '../../../src/shared/results/expectation';
import { compilePlan } from '../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../src/shared/scenario/schema';
import type { RunRecord, StepRecord } from '../../../src/shared/run/record';

const plan = compilePlan(scenarioSchema.parse({
  version: 1, name: 't', world: { ranks: 2 },
  steps: [{ op: 'all_reduce', count: 3 }, { op: 'broadcast', count: 3, perRank: { 1: { op: 'all_reduce' } }, expect: 'failure' }, { op: 'all_reduce', count: 3 }],
}));
const verdicts = (...v: StepRecord['verdict'][]) => v.map((verdict, index) => ({ index, verdict }) as StepRecord);
const error = (step: number | null) => ({ rank: null, step, stepLabel: null, code: 'CLAB_TIMEOUT', message: 'm' });
type Outcome = Pick<RunRecord, 'status' | 'error' | 'steps'>;
const outcome = (status: RunRecord['status'], err: RunRecord['error'], steps: StepRecord[]): Outcome => ({ status, error: err, steps });

describe('expected failures', () => {
  it('a run that fails at the marked step, or after it, is diagnosed as expected', () => {
    const at = expectationOf(plan, outcome('error', error(1), verdicts('pass', 'error')));
    expect(at).toEqual({ steps: [1], met: true, note: 'diagnosed as expected: the deliberate mistake in step 1 (broadcast) made the run fail' });
    expect(expectationOf(plan, outcome('error', error(2), verdicts('pass', 'fail', 'error')))?.note).toBe(
      'diagnosed as expected: the deliberate mistake in step 1 (broadcast) made the run fail (in step 2 (all_reduce))',
    );
    expect(expectationOf(plan, outcome('failed', null, verdicts('pass', 'fail', 'pass')))?.met).toBe(true);
  });

  it('is not met when the marked step passed, the run failed earlier, passed or was stopped', () => {
    expect(expectationOf(plan, outcome('passed', null, verdicts('pass', 'pass', 'pass')))).toMatchObject({
      met: false, note: 'not as expected: step 1 (broadcast) should have failed, but it passed',
    });
    expect(expectationOf(plan, outcome('error', error(0), verdicts('error')))?.note).toBe(
      'not as expected: the run failed in step 0 (all_reduce), before the deliberate mistake in step 1 (broadcast)',
    );
    expect(expectationOf(plan, outcome('error', error(null), []))?.met).toBe(false);
    expect(expectationOf(plan, outcome('aborted', error(1), verdicts('pass', 'stopped')))?.met).toBe(false);
  });

  it('runSucceeded: passed without marked steps; with them, only when met', () => {
    expect(runSucceeded({ status: 'passed' })).toBe(true);
    expect(runSucceeded({ status: 'error' })).toBe(false);
    expect(runSucceeded({ status: 'error', expectation: { steps: [1], met: true, note: '' } })).toBe(true);
    expect(runSucceeded({ status: 'passed', expectation: { steps: [1], met: false, note: '' } })).toBe(false);
  });

  it('a plan without marked steps has no expectation', () => {
    const plain = compilePlan(scenarioSchema.parse({ version: 1, name: 't', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] }));
    expect(expectationOf(plain, outcome('passed', null, verdicts('pass')))).toBeUndefined();
  });
});
