import { describe, expect, it } from 'vitest';
import { formatDuration, tickLabel, tickStep, timeTicks } from '../../../src/renderer/src/timeline/ticks';
import { clampViewport, fitAll, MIN_SPAN_NS, panBy, zoomAround } from '../../../src/renderer/src/timeline/viewport';

describe('time axis', () => {
  it('reads durations in ns, µs, ms and s', () => {
    expect(formatDuration(12)).toBe('12 ns');
    expect(formatDuration(1_500)).toBe('1.5 µs');
    expect(formatDuration(2_345_678)).toBe('2.35 ms');
    expect(formatDuration(3e9)).toBe('3 s');
  });

  it('ticks at 1, 2 or 5 × 10^k, no more than asked', () => {
    expect(tickStep(1_000, 10)).toBe(100);
    expect(tickStep(1_000, 4)).toBe(500);
    expect(tickStep(7_300_000, 8)).toBe(1_000_000);
    const { step, ticks } = timeTicks(150, 1_020, 5);
    expect(step).toBe(200);
    expect(ticks).toEqual([200, 400, 600, 800, 1_000]);
  });

  it('labels ticks in the unit of the step', () => {
    expect(tickLabel(400_000, 200_000)).toBe('400 µs');
    expect(tickLabel(2_500_000, 500_000)).toBe('2500 µs');
    expect(tickLabel(3_000_000, 1_000_000)).toBe('3 ms');
    expect(tickLabel(0, 200)).toBe('0 ns');
  });
});

describe('visible window', () => {
  const total = 1_000_000;

  it('zooms around the time under the pointer', () => {
    const v = zoomAround({ start: 0, end: 1_000 }, 250, 0.5, total);
    expect(v).toEqual({ start: 125, end: 625 });
  });

  it('pans and stays within the run', () => {
    expect(panBy({ start: 0, end: 1_000 }, 500, total)).toEqual({ start: 500, end: 1_500 });
    const fit = fitAll(total);
    const v = panBy({ start: 0, end: 1_000 }, -1e9, total);
    expect(v.start).toBeCloseTo(fit.start);
    expect(v.end - v.start).toBeCloseTo(1_000);
  });

  it('never narrower than the clock can tell apart, never wider than the run', () => {
    const narrow = clampViewport({ start: 10, end: 10 }, total);
    expect(narrow.end - narrow.start).toBe(MIN_SPAN_NS);
    const wide = clampViewport({ start: -1e12, end: 1e12 }, total);
    expect(wide).toEqual(fitAll(total));
  });
});
