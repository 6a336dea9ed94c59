import { describe, expect, it } from 'vitest';
import { DTYPES, sliceTensor, type Tensor } from '../../../src/shared/data/dtypes';
import { lazyConcat, lazyPattern, lazyReduce, lazySlice, materialize, type Lazy } from '../../../src/shared/data/lazy';
import { patternTensor, type DataPattern } from '../../../src/shared/data/patterns';
import { reduceTensors } from '../../../src/shared/data/reduce';

const values = (t: Tensor) => Array.from({ length: t.length }, (_, i) => t.get(i));
const PATTERNS: DataPattern[] = [
  { kind: 'rank', scale: 2, offset: 1 },
  { kind: 'arange', start: -3, step: 0.7 },
  { kind: 'arange_rank', start: 1 },
  { kind: 'constant', value: 5 },
  { kind: 'random', seed: 7 },
];

/** Every window [from, from + n) of `e` reads as the same window of the whole. */
function expectWindowsMatch(e: Lazy): void {
  const whole = values(materialize(e));
  expect(whole).toHaveLength(e.length);
  for (let from = 0; from <= e.length; from++)
    for (let n = 0; from + n <= e.length; n++) expect(values(e.read(from, n))).toEqual(whole.slice(from, from + n));
}

describe('lazy expected outputs', () => {
  it('a pattern read from an offset holds the elements of the whole input at that offset, every dtype', () => {
    for (const dtype of DTYPES)
      for (const pattern of PATTERNS) {
        const whole = patternTensor(pattern, 1, dtype, 40);
        expect(values(patternTensor(pattern, 1, dtype, 13, 21))).toEqual(values(sliceTensor(whole, 21, 13)));
        expectWindowsMatch(lazyPattern(pattern, 1, dtype, 9));
      }
  });

  it('slices, concatenations and reductions read any window as the whole would', () => {
    const parts = [0, 1, 2].map((r) => lazyPattern({ kind: 'arange_rank', start: 1, rankStride: 100 }, r, 'float32', 6));
    const cat = lazyConcat(
      'float32',
      parts.map((p, r) => lazySlice(p, r, 4)),
    );
    expect(values(materialize(cat))).toEqual([1, 2, 3, 4, 102, 103, 104, 105, 203, 204, 205, 206]);
    expectWindowsMatch(cat);
    const sum = lazyReduce(parts, (w) => reduceTensors('float32', 'sum', w));
    expect(values(materialize(sum))).toEqual([303, 306, 309, 312, 315, 318]);
    expectWindowsMatch(sum);
    expectWindowsMatch(lazySlice(lazyConcat('float32', [sum, cat]), 3, 10));
  });
});
