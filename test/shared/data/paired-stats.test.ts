// The paired statistics (src/shared/data/stats.ts) that the GPU benches (bench/gpu/paired.cjs) and
// the NCCL A/B read their ratios with: the median of per-repeat ratios and its distribution-free interval.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { binomialCdfHalf, medianWithInterval, pairedRatios, targetVerdict } from '../../../src/shared/data/stats';

/** The interval's order statistic as its definition reads: the largest j with P(X < j) ≤ the tail, each P summed anew. */
function referenceJ(n: number, level: number): number {
  let j = 0;
  while (j + 1 <= n / 2 && binomialCdfHalf(n, j) <= (1 - level) / 2) j++;
  return j;
}

describe('binomialCdfHalf', () => {
  it('matches known values', () => {
    expect(binomialCdfHalf(1, 0)).toBeCloseTo(0.5, 12);
    expect(binomialCdfHalf(10, 1)).toBeCloseTo(11 / 1024, 12);
    expect(binomialCdfHalf(30, 9)).toBeCloseTo(0.021387, 5);
    expect(binomialCdfHalf(30, 10)).toBeCloseTo(0.049369, 5);
    expect(binomialCdfHalf(5, -1)).toBe(0);
    expect(binomialCdfHalf(5, 5)).toBe(1);
  });
  it('is symmetric: P(X ≤ k) + P(X ≤ n − k − 1) = 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 }), fc.nat(), (n, raw) => {
        const k = raw % n;
        expect(binomialCdfHalf(n, k) + binomialCdfHalf(n, n - k - 1)).toBeCloseTo(1, 9);
      }),
    );
  });
});

describe('medianWithInterval', () => {
  it('takes the order statistics a sign test gives', () => {
    const v = Array.from({ length: 30 }, (_, i) => 30 - i); // 30 … 1, unsorted on purpose
    const m = medianWithInterval(v);
    expect(m).toMatchObject({ n: 30, median: 15.5, lo: 10, hi: 21, exact: true });
    expect(m.level).toBeGreaterThanOrEqual(0.95);
  });
  it('says when too few values give no 95 % interval', () => {
    expect(medianWithInterval([3, 1, 2])).toMatchObject({ n: 3, median: 2, lo: 1, hi: 3, exact: false });
    expect(medianWithInterval([NaN, Infinity])).toMatchObject({ n: 0 });
    expect(medianWithInterval([1, 2, 3, 4, 5, 6])).toMatchObject({ lo: 1, hi: 6, exact: true });
  });
  it('holds the median inside an interval of at least its level', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.5, max: 2, noNaN: true }), { minLength: 1, maxLength: 200 }), (v) => {
        const m = medianWithInterval(v);
        expect(m.lo).toBeLessThanOrEqual(m.median);
        expect(m.median).toBeLessThanOrEqual(m.hi);
        if (m.exact) expect(m.level).toBeGreaterThanOrEqual(0.95);
      }),
    );
  });
  it('covers the true median about as often as it says (bimodal samples, fixed seed)', () => {
    // Two modes as the lent machines show (6.5 and 9.5 µs, 45 % fast): the true median is known.
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const draw = () => (rand() < 0.45 ? 6.5 + rand() * 0.5 : 9.5 + rand() * 0.5);
    // The true median: P(X ≤ t) = 0.5 → inside the slow mode, at 9.5 + 0.5 × (0.05 / 0.55).
    const truth = 9.5 + 0.5 * (0.05 / 0.55);
    let covered = 0;
    const trials = 2000;
    for (let t = 0; t < trials; t++) {
      const m = medianWithInterval(Array.from({ length: 25 }, draw));
      if (m.lo <= truth && truth <= m.hi) covered++;
    }
    expect(covered / trials).toBeGreaterThan(0.93);
  });
  it('refuses more values than it is made for', () => {
    expect(() => medianWithInterval(new Array(1001).fill(1))).toThrow(/at most 1000/);
  });
});

describe('targetVerdict and pairedRatios', () => {
  it('reads a target against the whole interval', () => {
    expect(targetVerdict({ lo: 0.99, hi: 1.01 }, 1.02, 'max')).toBe('met');
    expect(targetVerdict({ lo: 1.03, hi: 1.05 }, 1.02, 'max')).toBe('missed');
    expect(targetVerdict({ lo: 1.0, hi: 1.05 }, 1.02, 'max')).toBe('unresolved');
    expect(targetVerdict({ lo: 0.98, hi: 1.0 }, 0.98, 'min')).toBe('met');
    expect(targetVerdict({ lo: 0.9, hi: 0.97 }, 0.98, 'min')).toBe('missed');
    expect(targetVerdict({ lo: 0.97, hi: 0.99 }, 0.98, 'min')).toBe('unresolved');
    expect(targetVerdict({ lo: NaN, hi: 1 }, 1, 'max')).toBe('n/a');
  });
  it('pairs repeat by repeat and skips a repeat either side lacks', () => {
    expect(pairedRatios([2, NaN, 3, 4], [1, 1, 0, 2, 5])).toEqual([2, 2]);
  });
});

describe('medianWithInterval against its definition', () => {
  it('takes the same order statistics and level as summing each P(X ≤ j) anew', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.constantFrom(0.8, 0.9, 0.95, 0.99), (n, level) => {
        const values = Array.from({ length: n }, (_, i) => i + 1);
        const m = medianWithInterval(values, level);
        const j = referenceJ(n, level);
        expect(m.exact).toBe(j > 0);
        if (j > 0) {
          expect([m.lo, m.hi]).toEqual([j, n + 1 - j]);
          expect(m.level).toBeCloseTo(1 - 2 * binomialCdfHalf(n, j - 1), 12);
        } else expect([m.lo, m.hi]).toEqual([1, n]);
      }),
    );
  });
});
