// What a rank reports of a step (step-result.ts) and the slices it draws of a run (step-events.ts),
// from the outcome of a step of a compiled plan: no process, no backend.
import { describe, expect, it } from 'vitest';
import { compilePlan } from '../../src/shared/plan/compile';
import type { PlanStep } from '../../src/shared/plan/types';
import { scenarioSchema } from '../../src/shared/scenario/schema';
import type { NativeTimes } from '../../src/addon/native-api';
import { failedOutcome, type Outcome } from '../../src/worker/outcome';
import { hostEvent, runEvents } from '../../src/worker/step-events';
import { stepResult } from '../../src/worker/step-result';

const plan = compilePlan(
  scenarioSchema.parse({
    version: 1,
    name: 'report',
    world: { ranks: 2 },
    defaults: { iters: 2, warmup: 0 },
    steps: [
      { op: 'all_reduce', count: 4 },
      { op: 'send', from: 0, to: 1, count: 4 },
    ],
  }),
);
const stepOf = (kind: PlanStep['action']['kind']) => plan.steps.find((s) => s.action.kind === kind)!;
const times = (starts: number[], ends: number[], extra: Partial<NativeTimes> = {}): NativeTimes => ({
  startNs: starts,
  endNs: ends,
  ...extra,
});
const outcome = (o: Partial<Outcome>): Outcome => ({ checks: () => [], timed: null, events: [], note: null, ...o });
const check = (checked: number, wrong: number) => ({
  check: { checked, wrong, mismatches: wrong ? [{ index: 0, expected: '1', actual: '2' }] : [] },
  preview: '[1, 2]',
});

describe("a rank's step result", () => {
  it('fails where a check found wrong elements, passes where none did, and adds the counts', () => {
    const step = stepOf('collective');
    const failed = stepResult(step, 0, outcome({}), [check(4, 1), check(4, 0)]);
    expect(failed).toMatchObject({ verdict: 'fail', checked: 8, wrong: 1, output: '[1, 2] | [1, 2]' });
    expect(stepResult(step, 0, outcome({}), [check(4, 0)]).verdict).toBe('pass');
  });

  it('says why nothing was checked: no output on this rank, or sent to its peer', () => {
    expect(stepResult(stepOf('collective'), 1, outcome({}), [])).toMatchObject({ verdict: 'none', note: 'no output on this rank' });
    expect(stepResult(stepOf('p2p'), 0, outcome({}), []).note).toBe('sent to rank 1');
  });

  it('reports an error outcome as the verdict error, with its code', () => {
    const r = stepResult(stepOf('collective'), 0, failedOutcome({ code: 'CLAB_UNSUPPORTED', message: 'no' }), []);
    expect(r).toMatchObject({ verdict: 'error', error: { code: 'CLAB_UNSUPPORTED', message: 'no' } });
  });

  it("gives each iteration's time, the span, and the loop's time where the timed run was one loop", () => {
    const t = times([1000, 5000], [3000, 9000], { loopStartNs: 0, loopEndNs: 8000 });
    const r = stepResult(stepOf('collective'), 0, outcome({ timed: t }), []);
    expect(r.timesUs).toEqual([2, 4]);
    expect(r.spanUs).toBe(8);
    expect(r.loopUs).toBe(8);
  });
});

describe("a run's slices", () => {
  const base = { rank: 0, stream: 0, step: 0, name: 'all_reduce', bytes: 16 };

  it('draws the loop (or graph) of a timed run before its iterations, named by how it ran', () => {
    const looped = runEvents(base, times([10, 20], [15, 25], { loopStartNs: 0, loopEndNs: 9 }), 'timed');
    expect(looped.map((e) => [e.phase, e.name])).toEqual([
      ['loop', 'all_reduce ×2 (loop)'],
      ['timed', 'all_reduce'],
      ['timed', 'all_reduce'],
    ]);
    const graph = runEvents(base, times([10], [15], { loopStartNs: 0, loopEndNs: 9, launch: 'graph' }), 'timed');
    expect(graph[0].name).toBe('all_reduce ×1 (graph)');
  });

  it("draws the backend's data making and checking, and nothing for a run that did not happen", () => {
    const t = times([10], [15], { dataFillStartNs: 1, dataFillEndNs: 2, dataCheckStartNs: 16, dataCheckEndNs: 18 });
    expect(runEvents(base, t, 'warmup').map((e) => e.phase)).toEqual(['data-fill', 'data-check', 'warmup']);
    expect(runEvents(base, null, 'check')).toEqual([]);
  });

  it("puts the host's work on the step's stream, named by its phase", () => {
    const step = stepOf('collective');
    expect(hostEvent(1, step, 'verify', 5, 7)).toEqual({
      rank: 1,
      stream: step.stream,
      step: step.index,
      name: `${step.label} (verify)`,
      phase: 'verify',
      startNs: 5,
      endNs: 7,
      bytes: 0,
    });
  });
});
