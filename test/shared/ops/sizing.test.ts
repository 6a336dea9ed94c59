import { describe, expect, it } from 'vitest';
import { COLLECTIVE_DESCRIPTORS, COLLECTIVES, rankShare, splitTensor, wholeTensor } from '../../../src/shared/ops/index';

describe('how count, algbw bytes and sweep sizes relate', () => {
  it('gives a sweep only counts the collective accepts, whose algbw bytes reach the size asked but never pass it', () => {
    for (const op of COLLECTIVES) {
      const d = COLLECTIVE_DESCRIPTORS[op];
      for (const world of [1, 2, 3, 8]) {
        for (const bytes of [64, 1000, 1 << 20]) {
          const count = d.countForBytes(bytes, 4, world);
          expect(d.countError(count, world), `${op} on ${world}`).toBeNull();
          const alg = d.algBytes(count, 4, world);
          expect(alg, `${op} ${bytes} B on ${world}`).toBeLessThanOrEqual(bytes);
          expect(d.algBytes(d.countForBytes(bytes * 2, 4, world), 4, world)).toBeGreaterThan(alg);
        }
      }
    }
  });

  it('counts a whole tensor once, a rank share world times, and refuses a split tensor that does not divide', () => {
    expect([wholeTensor, rankShare, splitTensor('x')].map((s) => s.algBytes(6, 4, 3))).toEqual([24, 72, 24]);
    expect(splitTensor('it splits').countError(7, 2)).toBe('count 7 is not divisible by the world size 2: it splits');
    expect(wholeTensor.countError(7, 2)).toBeNull();
  });
});
