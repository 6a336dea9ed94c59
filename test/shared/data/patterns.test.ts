import { describe, expect, it } from 'vitest';
import { nativePattern } from '../../../src/shared/data/data-program.js';
import { patternGenerator, patternTensor, randomRange } from '../../../src/shared/data/patterns.js';

describe('random data', () => {
  it('draws floats from [-1, 1) and integers from 0 to 10 unless given bounds', () => {
    expect(randomRange({ kind: 'random', seed: 1 }, 'float32')).toEqual({ float: true, min: -1, max: 1 });
    expect(randomRange({ kind: 'random', seed: 1 }, 'int32')).toEqual({ float: false, min: 0, max: 10 });
    expect(randomRange({ kind: 'random', seed: 1, min: 3, max: 4 }, 'uint8')).toEqual({ float: false, min: 3, max: 4 });
  });

  it('keeps every element within those bounds, one at a time and in bulk, and tells the backend the same', () => {
    const pattern = { kind: 'random', seed: 7 } as const;
    const one = patternGenerator(pattern, 2, 'int32');
    const bulk = Array.from(patternTensor(pattern, 2, 'int32', 1000).raw as Int32Array);
    expect(bulk).toEqual(Array.from({ length: 1000 }, (_, i) => one(i)));
    expect(Math.min(...bulk)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...bulk)).toBeLessThanOrEqual(10);
    expect(nativePattern(pattern, 'int32')).toMatchObject({ min: 0, max: 10 });
    expect(nativePattern(pattern, 'float64')).toMatchObject({ min: -1, max: 1 });
  });
});
