// bench/gpu/paired.cjs: the GPU benches read their targets with the lab's own paired statistics
// (src/shared/data/stats.ts, tested in test/shared/data/paired-stats.test.ts), through the bundle
// `npm run build` makes (dist/stats.cjs), not a copy; only the tally of verdicts is the benches' own.
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { binomialCdfHalf, medianWithInterval, pairedRatios, targetVerdict } from '../../src/shared/data/stats';

const require = createRequire(import.meta.url);
const paired = require('../../bench/gpu/paired.cjs') as {
  binomialCdfHalf: typeof binomialCdfHalf;
  medianWithInterval: typeof medianWithInterval;
  verdict: typeof targetVerdict;
  pairedRatios: typeof pairedRatios;
  tallyVerdict: (t: { met: number; missed: number[]; unresolved: number[] }, v: string, item: number) => typeof t;
};

describe('bench/gpu/paired.cjs', () => {
  it('answers as the shared statistics do', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.5, max: 2, noNaN: true }), { maxLength: 60 }),
        fc.array(fc.double({ min: 0.5, max: 2, noNaN: true }), { maxLength: 60 }),
        (a, b) => {
          const ratios = paired.pairedRatios(a, b);
          expect(ratios).toEqual(pairedRatios(a, b));
          const m = paired.medianWithInterval(ratios);
          expect(m).toEqual(medianWithInterval(ratios));
          expect(paired.verdict(m, 1, 'max')).toBe(targetVerdict(m, 1, 'max'));
          expect(paired.binomialCdfHalf(ratios.length, 2)).toBe(binomialCdfHalf(ratios.length, 2));
        },
      ),
    );
  });
  it('tallies verdicts: met by number, the others by the item they were read for', () => {
    const t = { met: 0, missed: [] as number[], unresolved: [] as number[] };
    for (const [v, item] of [
      ['met', 8],
      ['missed', 16],
      ['unresolved', 32],
      ['n/a', 64],
      ['met', 128],
    ] as const)
      paired.tallyVerdict(t, v, item);
    expect(t).toEqual({ met: 2, missed: [16], unresolved: [32] });
  });
});
