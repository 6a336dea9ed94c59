import { describe, expect, it } from 'vitest';
import { tickLabel, tickStep, timeTicks } from '../../../src/renderer/src/ui/ticks';
import { formatDuration } from '../../../src/renderer/src/ui/units';

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
