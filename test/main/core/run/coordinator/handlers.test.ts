// The coordinator's smaller handlers on their own: the steps' tally, the failure, the pairs' routing
// and cells, the log.
import { describe, expect, it } from 'vitest';
import { StepTally } from '../../../../../src/main/core/run/coordinator/steps';
import { RunFailure } from '../../../../../src/main/core/run/coordinator/failure';
import { commIdTargets, withPairCells } from '../../../../../src/main/core/run/coordinator/pairs';
import { RunLog } from '../../../../../src/main/core/run/coordinator/logs';
import { compilePlan } from '../../../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../../../src/shared/scenario/schema';
import { result } from './script';

const planOf = (ranks: number, steps: unknown[]) =>
  compilePlan(scenarioSchema.parse({ version: 1, name: 'handlers', world: { ranks }, defaults: { warmup: 0, iters: 1 }, steps }));

describe('the steps tally', () => {
  const plan = planOf(3, [
    { op: 'all_reduce', count: 3 },
    { op: 'send', from: 0, to: 2, count: 3 },
  ]);

  it('makes a step record when the last rank in the step ends it, with every rank’s events', () => {
    const tally = new StepTally(plan);
    const event = (rank: number, step: number) => ({
      rank,
      stream: 0,
      step,
      name: 'x',
      phase: 'timed' as const,
      startNs: rank,
      endNs: rank + 1,
      bytes: 0,
    });
    expect(tally.ended(result(0, 1), [event(0, 1)])).toBeNull();
    expect(tally.finishedOn(1, 0)).toBe(true);
    expect(tally.finishedOn(1, 2)).toBe(false);
    const done = tally.ended(result(2, 1), [event(2, 1)])!;
    expect(done).toMatchObject({ done: 1, total: 2, record: { index: 1, verdict: 'pass' } });
    expect(done.events.map((e) => e.rank)).toEqual([0, 2]);
    expect(tally.finished(1)).toBe(true);
    expect(tally.finished(0)).toBe(false);
    expect(tally.events).toHaveLength(2);
  });

  it('lists a step begun and not finished only once the run ended, as the verdict given', () => {
    const tally = new StepTally(plan);
    tally.ended(result(1, 0), []);
    expect(tally.stepRecords(false, () => false, 'error')).toEqual([]);
    expect(tally.stepRecords(true, () => false, 'stopped').map((s) => [s.index, s.verdict])).toEqual([[0, 'stopped']]);
    expect(tally.stepRecords(true, (s) => s === 1, 'error').map((s) => [s.index, s.verdict])).toEqual([
      [0, 'error'],
      [1, 'error'],
    ]);
  });
});

describe('the failure', () => {
  const plan = planOf(2, [{ op: 'all_reduce', count: 3 }]);

  it('keeps the first failure only, with its step label', () => {
    const failure = new RunFailure(plan, 1500);
    expect(failure.fail(null, 0, 'CLAB_TIMEOUT', 'late', 5)).toEqual({
      rank: null,
      step: 0,
      stepLabel: 'all_reduce',
      code: 'CLAB_TIMEOUT',
      message: 'late',
    });
    expect(failure.fail(1, null, 'CLAB_RANK_EXITED', 'gone', 6)).toBeNull();
    expect(failure.atNs).toBe(5);
    expect(failure.error!.code).toBe('CLAB_TIMEOUT');
  });

  it("adds the last calls to a rank's own message at the close, not to the lab's", () => {
    const byRank = new RunFailure(plan, 1500);
    byRank.failRank(1, 0, 'NCCL_ERROR_X', 'rank 1 failed', 0);
    byRank.close(' [last calls entered: …]');
    expect(byRank.error!.message).toBe('rank 1 failed [last calls entered: …]');
    const byLab = new RunFailure(plan, 1500);
    byLab.fail(null, 0, 'CLAB_TIMEOUT', 'late', 0);
    byLab.close(' [last calls entered: …]');
    expect(byLab.error!.message).toBe('late');
  });

  it('says the kill is due once the grace is over, once, and never after the close', () => {
    const failure = new RunFailure(plan, 100);
    expect(failure.killDue(1e9)).toBe(false);
    failure.fail(null, null, 'CLAB_STOPPED', 'stop', 50e6);
    expect(failure.killDue(149)).toBe(false);
    expect(failure.killDue(150)).toBe(true);
    expect(failure.killDue(151)).toBe(false);
    const closed = new RunFailure(plan, 100);
    closed.fail(null, null, 'CLAB_STOPPED', 'stop', 0);
    closed.close('');
    expect(closed.killDue(1000)).toBe(false);
  });
});

describe('pairs', () => {
  const plan = planOf(3, [
    { op: 'all_reduce', count: 3 },
    { op: 'pairs', bytes: 64, latency: false, copy: false },
  ]);

  it("routes a pair's id to the other rank of the pair, any other id to every other rank", () => {
    const pair = plan.steps.find((s) => s.action.kind === 'pair' && s.action.from === 1 && s.action.to === 2)!;
    expect(commIdTargets(plan, 2, pair.index)).toEqual([1]);
    expect(commIdTargets(plan, 1, pair.index)).toEqual([2]);
    expect(commIdTargets(plan, 1, undefined)).toEqual([0, 2]);
    expect(commIdTargets(plan, 0, 0)).toEqual([1, 2]);
  });

  it('gives each pairs step its cell and leaves other steps and pairless plans as they are', () => {
    const steps = plan.steps.map((s) => ({ index: s.index, verdict: 'pass', ranks: [] }) as never);
    const out = withPairCells(plan, steps, [], new Map([[1, 0]]), 'cpu');
    expect(out[0]).toBe(steps[0]);
    expect(out[1].pair).toEqual({ transport: 'shared memory (cpu backend)', how: null, error: null });
    const plain = planOf(2, [{ op: 'all_reduce', count: 3 }]);
    const one = [{ index: 0 } as never];
    expect(withPairCells(plain, one, [], new Map(), 'cpu')).toBe(one);
  });
});

describe('the log', () => {
  it('keeps each line in order, at the time given', () => {
    const log = new RunLog();
    expect(log.add(null, 'run x', 5)).toEqual({ rank: null, atNs: 5, text: 'run x' });
    log.add(1, 'joined', 7);
    expect(log.lines.map((l) => l.text)).toEqual(['run x', 'joined']);
  });
});
