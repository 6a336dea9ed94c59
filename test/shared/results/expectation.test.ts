import { describe, expect, it } from 'vitest';
import { expectationOf, runSucceeded, shownStatus } from '../../../src/shared/results/expectation';
import { compilePlan } from '../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../src/shared/scenario/schema';
import type { RunRecord, StepRecord } from '../../../src/shared/run/record/record';
import { statusLine } from '../../../src/shared/export/format';
import { buildRecord } from '../export/records';

const plan = compilePlan(
  scenarioSchema.parse({
    version: 1,
    name: 't',
    world: { ranks: 2 },
    steps: [
      { op: 'all_reduce', count: 3 },
      { op: 'broadcast', count: 3, perRank: { 1: { op: 'all_reduce' } }, expect: 'failure' },
      { op: 'all_reduce', count: 3 },
    ],
  }),
);
const verdicts = (...v: StepRecord['verdict'][]) => v.map((verdict, index) => ({ index, verdict }) as StepRecord);
const error = (step: number | null) => ({ rank: null, step, stepLabel: null, code: 'CLAB_TIMEOUT', message: 'm' });
type Outcome = Pick<RunRecord, 'status' | 'error' | 'steps'>;
const outcome = (status: RunRecord['status'], err: RunRecord['error'], steps: StepRecord[]): Outcome => ({ status, error: err, steps });

describe('expected failures', () => {
  it('a run that fails at the marked step, or after it, is diagnosed as expected', () => {
    const at = expectationOf(plan, outcome('error', error(1), verdicts('pass', 'error')));
    expect(at).toEqual({
      steps: [1],
      met: true,
      note: 'expected failure seen: the deliberate mistake in step 1 (broadcast) made the run fail',
    });
    expect(expectationOf(plan, outcome('error', error(2), verdicts('pass', 'fail', 'error')))?.note).toBe(
      'expected failure seen: the deliberate mistake in step 1 (broadcast) made the run fail (in step 2 (all_reduce))',
    );
    expect(expectationOf(plan, outcome('failed', null, verdicts('pass', 'fail', 'pass')))?.met).toBe(true);
  });

  it('is not met when the marked step passed, the run failed earlier, passed or was stopped', () => {
    expect(expectationOf(plan, outcome('passed', null, verdicts('pass', 'pass', 'pass')))).toMatchObject({
      met: false,
      note: 'expected failure not seen: step 1 (broadcast) should have failed, but it passed',
    });
    expect(expectationOf(plan, outcome('error', error(0), verdicts('error')))?.note).toBe(
      'expected failure not seen: the run failed in step 0 (all_reduce), before the deliberate mistake in step 1 (broadcast)',
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
    const plain = compilePlan(
      scenarioSchema.parse({ version: 1, name: 't', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] }),
    );
    expect(expectationOf(plain, outcome('passed', null, verdicts('pass')))).toBeUndefined();
  });
});

describe('injected faults are expected failures too', () => {
  const faulted = compilePlan(
    scenarioSchema.parse({
      version: 1,
      name: 't',
      world: { ranks: 3 },
      steps: [{ op: 'pairs', bytes: 1024, latency: false, copy: false, faults: [{ from: 1, to: 2, kind: 'error' }] }],
    }),
  );
  const pairOf = (s: (typeof faulted.steps)[number]) => s.action as { from: number; to: number };
  const outcomeWith = (failing: (from: number, to: number) => 'injected' | 'real' | null): Outcome => {
    const steps = faulted.steps.map((s) => {
      const f = failing(pairOf(s).from, pairOf(s).to);
      return {
        index: s.index,
        verdict: f ? 'error' : 'pass',
        pair: {
          transport: null,
          how: null,
          error: f ? { rank: 1, code: 'X', message: 'm', warnings: [], hints: [], injected: f === 'injected' } : null,
        },
      } as StepRecord;
    });
    return outcome('failed', null, steps);
  };

  it('met when exactly the faulted pairs failed, by their injected faults', () => {
    const e = expectationOf(
      faulted,
      outcomeWith((from, to) => (from === 1 && to === 2 ? 'injected' : null)),
    );
    expect(e).toMatchObject({ met: true, note: 'expected failure seen: the injected fault broke the pair 1→2, and nothing else failed' });
  });

  it('not met when a pair without a fault failed too, or the faulted pair did not fail', () => {
    expect(
      expectationOf(
        faulted,
        outcomeWith((from, to) => (from === 1 && to === 2 ? 'injected' : from === 0 && to === 1 ? 'real' : null)),
      ),
    ).toMatchObject({
      met: false,
      note: 'expected failure not seen: the pair 0→1 failed without an injected fault',
    });
    expect(
      expectationOf(
        faulted,
        outcomeWith(() => null),
      ),
    ).toMatchObject({ met: false, note: 'expected failure not seen: the pair 1→2 has an injected fault but did not fail' });
  });
});

describe('the status line of a run with an expected failure', () => {
  const record = (patch: Partial<RunRecord>): RunRecord => ({ ...buildRecord({ world: 2, steps: [] }), ...patch });

  it('an expected failure seen reads as a pass, and never as 0/0 checked steps', () => {
    const line = statusLine(
      record({
        status: 'error',
        error: { ...error(0), message: 'collective mismatch' },
        expectation: {
          steps: [0],
          met: true,
          note: 'expected failure seen: the deliberate mistake in step 0 (broadcast) made the run fail',
        },
      }),
    );
    expect(line).toBe(
      'PASSED: expected failure seen: the deliberate mistake in step 0 (broadcast) made the run fail; no step checked on 2 ranks (cpu); collective mismatch',
    );
  });

  it('an expected failure not seen reads as a failure, even where the run passed', () => {
    const line = statusLine(
      record({
        status: 'passed',
        expectation: { steps: [0], met: false, note: 'expected failure not seen: step 0 (broadcast) should have failed, but it passed' },
      }),
    );
    expect(line).toMatch(/^FAILED: expected failure not seen: /);
  });
});

describe('the status every view shows', () => {
  it('reads a run that failed as meant as passed, one that passed instead as failed, any other as recorded', () => {
    const met = { met: true };
    expect(shownStatus({ status: 'error', expectation: met })).toBe('passed');
    expect(shownStatus({ status: 'failed', expectation: met })).toBe('passed');
    expect(shownStatus({ status: 'passed', expectation: { met: false } })).toBe('failed');
    expect(shownStatus({ status: 'aborted', expectation: { met: false } })).toBe('aborted');
    expect(shownStatus({ status: 'error' })).toBe('error');
  });
});
