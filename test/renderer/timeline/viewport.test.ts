import { describe, expect, it } from 'vitest';
import { clampViewport, fitAll, MIN_SPAN_NS, panBy, zoomAround } from '../../../src/renderer/src/timeline/viewport';

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
