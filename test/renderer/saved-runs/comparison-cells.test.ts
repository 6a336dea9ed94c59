import { describe, expect, it } from 'vitest';
import type { StepComparison } from '../../../src/shared/export/index.js';
import { changeSense, changeText, changeTitle } from '../../../src/renderer/src/saved-runs/comparison-cells.js';

const side = (median: number, min: number, max: number) => ({
  index: 0,
  timeUs: median,
  busbw: 1,
  verdict: 'pass' as const,
  spread: { min, median, max, samples: 20 },
});

describe('a change between two runs', () => {
  it('is written signed with one decimal', () => {
    expect(changeText(12.345)).toBe('+12.3%');
    expect(changeText(-4)).toBe('-4.0%');
    expect(changeText(0)).toBe('+0.0%');
    expect(changeText(null)).toBe('n/a');
  });

  it('is a gain when time goes down or busbw goes up', () => {
    expect(changeSense('time', -10)).toBe('better');
    expect(changeSense('time', 10)).toBe('worse');
    expect(changeSense('busbw', 10)).toBe('better');
    expect(changeSense('busbw', -10)).toBe('worse');
    expect(changeSense('busbw', null)).toBe('same');
  });

  it("says on hover why it is marked, with both runs' spreads", () => {
    const step: StepComparison = {
      label: 'all_reduce',
      op: 'all_reduce',
      bytes: 1024,
      occurrence: 0,
      a: side(10, 9, 11),
      b: side(20, 19, 22),
      timeChangePct: 100,
      busbwChangePct: -50,
      significant: true,
    };
    expect(changeTitle(step)).toBe(
      "outside both runs' spread: each median lies outside the other run's min…max. " +
        'A: median 10.0 µs over 20 iterations, 9.00…11.0; B: median 20.0 µs over 20 iterations, 19.0…22.0',
    );
    expect(changeTitle({ ...step, significant: false, b: { ...step.b, spread: null } })).toMatch(
      /^within the runs' spread .*; B: not timed$/,
    );
  });
});
