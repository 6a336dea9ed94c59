import { describe, expect, it } from 'vitest';
import { recordAsItsStepsSay } from '../../../src/shared/results/record-status';
import { runSucceeded } from '../../../src/shared/results/expectation';
import { statusLine } from '../../../src/shared/export/format';
import type { RunRecord } from '../../../src/shared/run/record/record';
import { allReduce, buildRecord } from '../export/records';

const FILE = 'runs/edited.run.json';
/** A record of three all_reduce steps on 2 ranks, saved as passed; `wrong` of them found wrong values. */
const record = (wrong: number[]): RunRecord =>
  buildRecord({
    world: 2,
    steps: [0, 1, 2].map((i) => ({ label: `step ${i}`, action: allReduce(4), timesUs: [[1], [1]], wrong: wrong.includes(i) ? 1 : 0 })),
  });

describe("a record's status beside its steps", () => {
  it('shows a record saved as passed whose every step failed as failed, with a notice naming the file', () => {
    const saved = record([0, 1, 2]);
    expect(saved.status).toBe('passed');
    const { record: shown, notice } = recordAsItsStepsSay(saved, FILE);
    expect(shown.status).toBe('failed');
    expect(runSucceeded(shown)).toBe(false);
    expect(statusLine(shown)).toBe('FAILED: 0/3 checked steps correct on 2 ranks (cpu)');
    expect(notice).toBe(`${FILE}: the record's status is "passed" but 3 of its 3 steps failed; shown as failed, as its steps say`);
    // The record read is left as it was.
    expect(saved.status).toBe('passed');
  });

  it('shows a record saved as failed whose every step passed as passed', () => {
    const { record: shown, notice } = recordAsItsStepsSay({ ...record([]), status: 'failed' }, FILE);
    expect(statusLine(shown)).toBe('PASSED: 3/3 checked steps correct on 2 ranks (cpu)');
    expect(notice).toBe(`${FILE}: the record's status is "failed" but none of its steps failed; shown as passed, as its steps say`);
  });

  it('leaves a record whose status its steps agree with as it is, with no notice', () => {
    const passed = record([]);
    const failed = { ...record([1]), status: 'failed' as const };
    expect(recordAsItsStepsSay(passed, FILE)).toEqual({ record: passed, notice: null });
    expect(recordAsItsStepsSay(failed, FILE)).toEqual({ record: failed, notice: null });
  });

  it('leaves an error, a stop and a record still being written to their own status, whatever the steps', () => {
    const error = { rank: 0, step: 1, stepLabel: 'step 1', code: 'CLAB_TIMEOUT', message: 'rank 0 timed out' };
    for (const status of ['error', 'aborted', 'incomplete'] as const) {
      const saved = { ...record([]), status, error };
      expect(recordAsItsStepsSay(saved, FILE)).toEqual({ record: saved, notice: null });
    }
  });

  it('counts a step that only its own ranks refused as no failure of the run, as a run does', () => {
    const saved = record([]);
    saved.steps[1] = { ...saved.steps[1], verdict: 'error' };
    expect(recordAsItsStepsSay(saved, FILE).notice).toBeNull();
  });

  it('gives a deliberate mistake the verdict of the status its steps say', () => {
    const saved = record([1]);
    saved.plan.steps[1] = { ...saved.plan.steps[1], expect: 'failure' };
    // As a run would have said it, had it passed.
    saved.expectation = {
      steps: [1],
      met: false,
      note: 'expected failure not seen: step 1 (step 1) should have failed, but the run passed',
    };
    const { record: shown } = recordAsItsStepsSay(saved, FILE);
    expect(shown.expectation?.met).toBe(true);
    expect(runSucceeded(shown)).toBe(true);
    expect(statusLine(shown)).toMatch(/^PASSED: expected failure seen: the deliberate mistake in step 1 \(step 1\) made the run fail;/);
  });
});
