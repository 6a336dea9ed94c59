import { describe, expect, it } from 'vitest';
import { MAX_OVERLAID_RUNS, RUN_COLOURS, sweepOverlay } from '../../../src/shared/export/sweep-overlay.js';
import { allReduce, buildRecord } from './records.js';

/** A run of one all_reduce sweep from 8 B up to `sizes` doublings, each size taking `us` µs. */
function sweepRun(sizes: number, us: (bytes: number) => number, world = 2) {
  return buildRecord({
    world,
    sweeps: [{ index: 0, path: 'steps[0]', label: 'all_reduce sweep', op: 'all_reduce', dtype: 'float32', redop: 'sum', root: 0 }],
    steps: Array.from({ length: sizes }, (_, i) => {
      const bytes = 8 * 2 ** i;
      return {
        label: `all_reduce sweep ${bytes} B`,
        action: allReduce(bytes / 4),
        origin: { kind: 'sweep' as const, sweep: 0, size: bytes },
        timesUs: Array.from({ length: world }, () => [us(bytes)]),
      };
    }),
  });
}

describe('sweeps on one chart', () => {
  it("draws each run's busbw in its own colour, with one legend entry each", () => {
    const a = sweepRun(6, () => 10);
    const b = sweepRun(8, () => 20, 4);
    const { series, sweeps } = sweepOverlay([
      { name: 'a.run.json', record: a },
      { name: 'b.run.json', record: b },
    ]);
    expect(sweeps).toBe(2);
    const measured = series.filter((s) => s.markers);
    expect(measured.map((s) => [s.label, s.colour, s.points.length])).toEqual([
      ['a.run.json busbw', RUN_COLOURS[0], 6],
      ['b.run.json busbw', RUN_COLOURS[1], 8],
    ]);
    expect(new Set(series.map((s) => s.label)).size).toBe(series.length);
    // A model, where there is one, is dashed in its run's colour.
    for (const m of series.filter((s) => !s.markers)) {
      expect(m.dash.length).toBeGreaterThan(0);
      expect(measured.map((s) => s.colour)).toContain(m.colour);
    }
  });

  it('picks one unit for every run: MB/s where all are small', () => {
    const { unit, series } = sweepOverlay([
      { name: 'a', record: sweepRun(4, () => 100) },
      { name: 'b', record: sweepRun(4, () => 200) },
    ]);
    expect(unit.name).toBe('MB/s');
    // 64 B in 100 µs: 0.64 MB/s algbw, busbw × 1 on 2 ranks.
    expect(series[0].points[3].y).toBeCloseTo(0.64);
  });

  it('refuses more runs than it has colours for', () => {
    const runs = Array.from({ length: MAX_OVERLAID_RUNS + 1 }, (_, i) => ({ name: String(i), record: sweepRun(2, () => 10) }));
    expect(() => sweepOverlay(runs)).toThrow(`at most ${MAX_OVERLAID_RUNS} runs on one chart, not ${MAX_OVERLAID_RUNS + 1}`);
  });
});
