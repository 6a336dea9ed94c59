import { describe, expect, it } from 'vitest';
import { markMeasure, measureBetween, measureDuration, measureText } from '../../../src/renderer/src/timeline/measure';

describe('measuring a range', () => {
  it('marks the start, then the end, then starts again', () => {
    const started = markMeasure(null, 1_500);
    expect(started).toEqual({ start: 1_500, end: null });
    expect(measureDuration(started)).toBeNull();
    const ended = markMeasure(started, 4_000);
    expect(ended).toEqual({ start: 1_500, end: 4_000 });
    expect(measureDuration(ended)).toBe(2_500);
    expect(markMeasure(ended, 7_000)).toEqual({ start: 7_000, end: null });
  });

  it('takes an end before the start as the start (a drag to the left)', () => {
    expect(markMeasure({ start: 5_000, end: null }, 2_000)).toEqual({ start: 2_000, end: 5_000 });
    expect(measureBetween(9, 3)).toEqual({ start: 3, end: 9 });
  });

  it('says the duration and where it lies', () => {
    expect(measureText({ start: 1_000, end: 2_500_000 })).toBe('Δ 2.5 ms  (1 µs → 2.5 ms)');
    expect(measureText({ start: 1_000, end: null })).toContain('press M again');
  });
});
