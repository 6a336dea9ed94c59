import { describe, expect, it } from 'vitest';
import type { Plan } from '../../../src/shared/plan/types.js';
import type { StepRecord } from '../../../src/shared/record.js';
import { formatPairValue, heatColour, pairsHeatmaps, rangePosition, type PairCell } from '../../../src/renderer/src/results/pairs-heatmap.js';

const plan = (direction: 'one' | 'both'): Plan => ({
  world: 3, devices: null, streams: ['default'], steps: [], sweeps: [], compares: [],
  pairs: [{ index: 0, path: 'steps[0]', label: 'pairs', mode: 'all', direction, bytes: 1024 }],
});

function pairStep(from: number, to: number, both: boolean, algbw: number | null, meanUs: number, verdict: StepRecord['verdict'] = 'pass'): StepRecord {
  return {
    index: from * 3 + to, path: 'steps[0]', label: `pairs ${from}${both ? '⇄' : '→'}${to}`, origin: { kind: 'pairs', pairs: 0, from, to, both },
    action: { kind: 'p2p', from, to, dtype: 'float32', count: 256, data: { kind: 'rank' } } as StepRecord['action'],
    verdict, wrong: verdict === 'fail' ? 2 : 0, ranks: [],
    timing: { min: meanUs, median: meanUs, max: meanUs, p99: meanUs, mean: meanUs, samples: 10 },
    bytes: 1024, algbw, busbw: algbw, flops: null,
  };
}

const valueOf = (c: PairCell) => (c.kind === 'measured' ? c.value : c.kind);

describe('pairs heatmaps', () => {
  it('put a one-way measurement in its sender row and receiver column only', () => {
    const h = pairsHeatmaps(plan('one'), [pairStep(0, 1, false, 4, 250), pairStep(0, 2, false, 2, 500), pairStep(1, 2, false, 3, 333)], 0);
    expect(h.bandwidth.rows.map((row) => row.map(valueOf))).toEqual([
      ['self', 4, 2],
      ['not-measured', 'self', 3],
      ['not-measured', 'not-measured', 'self'],
    ]);
    expect(h.time.rows[0].map(valueOf)).toEqual(['self', 250, 500]);
    expect(h.bandwidth.range).toEqual({ min: 2, max: 4 });
    expect(h.time.higherIsBetter).toBe(false);
  });

  it('fill both directions from a step that sent both ways at once', () => {
    const h = pairsHeatmaps(plan('both'), [pairStep(0, 1, true, 6, 300)], 0);
    expect(valueOf(h.bandwidth.rows[0][1])).toBe(6);
    expect(valueOf(h.bandwidth.rows[1][0])).toBe(6);
    expect(valueOf(h.bandwidth.rows[1][2])).toBe('not-measured');
  });

  it('mark a step that erred or did not finish, and keep them out of the colour range', () => {
    const h = pairsHeatmaps(plan('one'), [pairStep(0, 1, false, 4, 250), pairStep(0, 2, false, null, 0, 'error'), pairStep(1, 2, false, null, 0, 'not-run')], 0);
    expect(h.bandwidth.rows[0][2].kind).toBe('error');
    expect(h.bandwidth.rows[1][2].kind).toBe('unfinished');
    expect(h.bandwidth.range).toEqual({ min: 4, max: 4 });
  });

  it('keep a failed check measured, with its step to say how many were wrong', () => {
    const cell = pairsHeatmaps(plan('one'), [pairStep(0, 1, false, 4, 250, 'fail')], 0).bandwidth.rows[0][1];
    expect(cell.kind === 'measured' && cell.step.wrong).toBe(2);
  });

  it('ignore the steps of another pairs sweep', () => {
    const other = { ...pairStep(1, 0, false, 9, 1), origin: { kind: 'pairs' as const, pairs: 1, from: 1, to: 0, both: false } };
    expect(pairsHeatmaps(plan('one'), [other], 0).bandwidth.rows[1][0].kind).toBe('not-measured');
  });
});

describe('the colour scale', () => {
  it('runs from light at the minimum to dark at the maximum', () => {
    expect(rangePosition(2, { min: 2, max: 4 })).toBe(0);
    expect(rangePosition(3, { min: 2, max: 4 })).toBe(0.5);
    expect(rangePosition(5, { min: 5, max: 5 })).toBe(1);
    expect(heatColour('bandwidth', 0)).toBe('hsl(217, 85%, 94%)');
    expect(heatColour('bandwidth', 1)).toBe('hsl(217, 85%, 40%)');
    expect(heatColour('time', 1)).toBe('hsl(25, 85%, 40%)');
  });

  it('prints GB/s as numbers.ts does and µs as the step tables do', () => {
    expect(formatPairValue('bandwidth', 3.876)).toBe('3.88');
    expect(formatPairValue('bandwidth', 0.0048)).toBe('0.0048');
    expect(formatPairValue('time', 2163.1)).toBe('2163');
    expect(formatPairValue('time', 12.34)).toBe('12.3');
    expect(formatPairValue('time', 0.2165)).toBe('0.22');
  });
});
