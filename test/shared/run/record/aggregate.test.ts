import { describe, expect, it } from 'vitest';
import { summarizeStep } from '../../../../src/shared/run/record/aggregate.js';
import { timingLine } from '../../../../src/shared/export/format.js';
import type { PlanStep } from '../../../../src/shared/plan/types.js';
import type { RankStepResult } from '../../../../src/shared/run/rank/protocol.js';
import { perOpTime } from '../../../../src/shared/data/stats.js';

const step: PlanStep = {
  index: 0,
  path: 'steps[0]',
  label: 'all_reduce',
  origin: { kind: 'step' },
  action: {
    kind: 'collective',
    op: 'all_reduce',
    dtype: 'float32',
    redop: 'sum',
    root: 0,
    count: 2,
    inPlace: false,
    data: { kind: 'rank' },
  } as PlanStep['action'],
  warmup: 0,
  iters: 4,
  timeoutMs: 1000,
  async: false,
  asyncId: null,
  stream: 0,
};
const rank = (r: number, timesUs: number[], spanUs?: number): RankStepResult => ({
  step: 0,
  rank: r,
  verdict: 'pass',
  checked: 2,
  wrong: 0,
  mismatches: [],
  output: null,
  timesUs,
  note: null,
  ...(spanUs === undefined ? {} : { spanUs }),
});

describe('time per op, as nccl-tests measures it', () => {
  it('is the span of the timed loop over the iterations, averaged over ranks', () => {
    expect(perOpTime([40, 60], 4)).toBe(12.5);
    expect(perOpTime([40, undefined], 4)).toBeUndefined();
    expect(perOpTime([], 4)).toBeUndefined();
  });

  it('gives bandwidth from the loop when the GPU idles between small ops, and says so', () => {
    // Each iteration takes 8 µs on the GPU, but launches come every 14 µs: nccl-tests reports ~14.
    const s = summarizeStep(step, [rank(0, [8, 8, 8, 8], 50), rank(1, [8, 8, 8, 8], 50)], 2);
    expect(s.timing!.mean).toBe(8);
    expect(s.timing!.perOp).toBe(12.5);
    expect(s.bytes).toBe(8);
    expect(s.algbw).toBeCloseTo(8 / 12.5e3, 9);
    expect(timingLine(s)).toContain('12.5 µs per op over the loop');
  });

  it('takes the loop timed as a whole (nccl) over the span of the per-iteration events', () => {
    const withLoop = (r: number, loopUs: number): RankStepResult => ({ ...rank(r, [10, 10, 10, 10], 44), loopUs });
    const s = summarizeStep(step, [withLoop(0, 40), withLoop(1, 42)], 2);
    expect(s.timing!.perOp).toBe(10.25);
    expect(s.algbw).toBeCloseTo(8 / 10.25e3, 9);
    // A rank without the loop falls back to its span.
    expect(summarizeStep(step, [withLoop(0, 40), rank(1, [10, 10, 10, 10], 48)], 2).timing!.perOp).toBe(11);
  });

  it("takes a graph-launched loop's replay as time per op, and says both that and how the iterations ran", () => {
    const graph = (r: number, loopUs: number): RankStepResult => ({ ...rank(r, [10, 10, 10, 10], 44), loopUs, launch: 'graph' });
    const s = summarizeStep(step, [graph(0, 20), graph(1, 24)], 2);
    expect(s.timing!.perOp).toBe(5.5);
    expect(s.algbw).toBeCloseTo(8 / 5.5e3, 9);
    expect(timingLine(s)).toContain(`; 5.50 µs per op in a CUDA graph's replay (launch "graph"), the iterations host-launched)`);
    // The same loop host-launched reads as nccl-tests' loop.
    const host = summarizeStep(
      step,
      [
        { ...graph(0, 20), launch: undefined },
        { ...graph(1, 24), launch: undefined },
      ],
      2,
    );
    expect(timingLine(host)).toContain('5.50 µs per op over the loop, as nccl-tests times');
  });

  it('falls back to the mean iteration for records without spans', () => {
    const s = summarizeStep(step, [rank(0, [10, 10, 10, 10]), rank(1, [10, 10, 10, 10])], 2);
    expect(s.timing!.perOp).toBeUndefined();
    expect(s.algbw).toBeCloseTo(8 / 10e3, 9);
    expect(timingLine(s)).not.toContain('per op over the loop');
  });

  it('prints a step whose record has algbw but no busbw (an edited record the schema lets through) without busbw', () => {
    const s = summarizeStep(step, [rank(0, [10, 10, 10, 10]), rank(1, [10, 10, 10, 10])], 2);
    const line = timingLine({ ...s, busbw: null });
    expect(line).toContain('algbw');
    expect(line).not.toContain('busbw');
  });
});
