// The A/B chart's data: a point with its error bar per step timed on both sides, the y range that
// holds every interval and B = A, and the verdict's colour sense.
import { describe, expect, it } from 'vitest';
import { abChartPoints, abChartRange, verdictSense } from '../../../src/renderer/src/saved-runs/ab-chart';
import type { AbStep } from '../../../src/shared/results/nccl-ab';

const step = (bytes: number, ratio: number | null, lo: number | null, hi: number | null, occurrence = 0): AbStep => ({
  label: 'all_reduce sweep',
  op: 'all_reduce',
  bytes,
  occurrence,
  aUs: 10,
  bUs: ratio === null ? null : 10 * ratio,
  ratio,
  lo,
  hi,
  pairs: ratio === null ? 0 : 3,
  exact: false,
  verdict: ratio === null ? 'n/a' : hi! < 1 ? 'faster' : lo! > 1 ? 'slower' : 'within noise',
});

describe('the A/B chart', () => {
  it('draws every step with a ratio, named by step and size, and leaves out the untimed', () => {
    const points = abChartPoints([step(8, 1.2, 1.1, 1.3), step(16, null, null, null), step(1024, 0.9, 0.85, 0.95, 1)]);
    expect(points).toEqual([
      { label: 'all_reduce sweep, 8 B', ratio: 1.2, lo: 1.1, hi: 1.3, verdict: 'slower' },
      { label: 'all_reduce sweep (#2), 1 KiB', ratio: 0.9, lo: 0.85, hi: 0.95, verdict: 'faster' },
    ]);
    // A sweep's step is labelled with its size already: not said twice.
    expect(abChartPoints([{ ...step(8, 1, 0.9, 1.1), label: 'all_reduce sweep 8 B' }])[0].label).toBe('all_reduce sweep 8 B');
  });

  it('keeps every interval and B = A in view', () => {
    const above = abChartRange(abChartPoints([step(8, 1.2, 1.1, 1.3)]));
    expect(above.min).toBeLessThan(1);
    expect(above.max).toBeGreaterThan(1.3);
    const below = abChartRange(abChartPoints([step(8, 0.5, 0.4, 0.6)]));
    expect(below.min).toBeLessThan(0.4);
    // A log axis: above 0.
    expect(below.min).toBeGreaterThan(0);
    expect(below.max).toBeGreaterThan(1);
  });

  it('colours B faster as a gain, slower as a loss, the rest as neither', () => {
    expect(['faster', 'slower', 'within noise', 'n/a'].map((v) => verdictSense(v as AbStep['verdict']))).toEqual([
      'better',
      'worse',
      'same',
      'same',
    ]);
  });
});
