// Where the lab says a rank was when it exited: a step every rank is in, begun by the others and
// not yet by it (the kill came first), is its step, not one "it takes no part in". Seen on CI under
// load: the launcher test's rank 1 was killed before its begin message reached the core. And the
// gate between pairs, which waits for the ranks outside the pair that ran.
import { describe, expect, it } from 'vitest';
import { GateWatch, GATE_GRACE_MS, whereIs } from '../../../../../src/main/core/run/coordinator/where';
import { StepGates } from '../../../../../src/main/core/run/step-gates';
import { Watchdog } from '../../../../../src/main/core/run/watchdog';
import { compilePlan } from '../../../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../../../src/shared/scenario/schema';

function world(steps: unknown[], ranks: number) {
  const plan = compilePlan(scenarioSchema.parse({ version: 1, name: 'where', world: { ranks }, steps }));
  const positions = new Watchdog(plan, 30_000);
  const gates = new StepGates(ranks);
  const finished = new Set<number>();
  return { plan, positions, gates, finished, where: (rank: number) => whereIs(plan, rank, positions, gates, (s) => finished.has(s)) };
}

describe('where a rank that exited was', () => {
  it('names the step every rank is in that the others began first, without "takes no part in"', () => {
    const w = world([{ op: 'all_reduce', count: 16 }], 2);
    w.positions.stepBegan(0, 0, 0);
    expect(w.where(1)).toEqual({ step: 0, where: ' during step 0 (all_reduce), before it began it' });
  });

  it('says "takes no part in" of a step the rank is not in', () => {
    const w = world([{ op: 'send', from: 0, to: 1, count: 16 }], 3);
    w.positions.stepBegan(0, 0, 0);
    w.positions.stepBegan(1, 0, 0);
    expect(w.where(2).where).toMatch(/^ while idle, during step 0 \(.+\), which it takes no part in$/);
  });

  it("names the rank's own step where it began one", () => {
    const w = world([{ op: 'all_reduce', count: 16 }], 2);
    w.positions.stepBegan(0, 0, 0);
    w.positions.stepBegan(1, 0, 0);
    expect(w.where(1)).toEqual({ step: 0, where: ' during step 0 (all_reduce)' });
  });

  it('names nothing before the first step, and a finished step no more', () => {
    const w = world([{ op: 'all_reduce', count: 16 }], 2);
    expect(w.where(1)).toEqual({ step: null, where: '' });
    w.positions.stepBegan(0, 0, 0);
    w.positions.stepEnded(0, 0);
    w.finished.add(0);
    expect(w.where(1)).toEqual({ step: null, where: '' });
  });

  it('names the pair whose gate opened last, between its gate and its first step', () => {
    const w = world([{ op: 'pairs', bytes: 64, latency: false, copy: false }], 3);
    for (const r of [0, 1, 2]) w.gates.arrive(r, 0, 5);
    expect(w.where(2).where).toMatch(/^ while idle, during step 0 \(.+\), which it takes no part in$/);
    expect(w.where(0).where).toMatch(/^ during step 0 \(.+\), before it began it$/);
  });
});

describe('the gate between pairs', () => {
  const pairs = [{ op: 'pairs', bytes: 64, timeoutMs: 1000, latency: false, copy: false }];

  it('waits the pair timeout and the grace from when no step runs, then names the ranks not there', () => {
    const w = world(pairs, 4);
    for (const r of [0, 1, 2, 3]) w.positions.join(r);
    const watch = new GateWatch(w.plan);
    watch.restart(50);
    w.gates.arrive(0, 2, 0);
    w.gates.arrive(1, 2, 0);
    expect(watch.check(50, w.gates, w.positions, new Set())).toBeNull();
    expect(watch.check(50 + 1000 + GATE_GRACE_MS, w.gates, w.positions, new Set())).toBeNull();
    expect(watch.check(51 + 1000 + GATE_GRACE_MS, w.gates, w.positions, new Set())).toMatchObject({
      rank: 2,
      step: 2,
      code: 'CLAB_GATE_TIMEOUT',
      message: expect.stringMatching(
        /^ranks 2, 3 never reached the gate of step 2 \(.+\) within 3000 ms, while ranks 0, 1 waited there and no step ran \(rank 2; rank 3\)$/,
      ),
    });
    // A rank that exited is not waited for: it failed the run already.
    expect(watch.check(51 + 1000 + GATE_GRACE_MS, w.gates, w.positions, new Set([2]))).toMatchObject({ rank: 3 });
  });

  it('does not count the time a step runs somewhere, or before every rank joined', () => {
    const w = world(pairs, 3);
    const watch = new GateWatch(w.plan);
    w.gates.arrive(0, 2, 0);
    expect(watch.check(10_000, w.gates, w.positions, new Set())).toBeNull();
    for (const r of [0, 1, 2]) w.positions.join(r);
    w.positions.stepBegan(1, 0, 10_000);
    expect(watch.check(20_000, w.gates, w.positions, new Set())).toBeNull();
    w.positions.stepEnded(1, 0);
    expect(watch.check(20_000 + 3000, w.gates, w.positions, new Set())).toBeNull();
    expect(watch.check(20_000 + 3001, w.gates, w.positions, new Set())).toMatchObject({ code: 'CLAB_GATE_TIMEOUT' });
  });
});
