import { describe, expect, it } from 'vitest';
import { checkLazy, checkTensor } from '../../../src/shared/data/check';
import { allocTensor } from '../../../src/shared/data/dtypes';
import { lazyTensor } from '../../../src/shared/data/lazy';

const tensor = (dtype: Parameters<typeof allocTensor>[0], values: number[]) => {
  const t = allocTensor(dtype, values.length);
  values.forEach((v, i) => t.set(i, dtype === 'int64' ? BigInt(v) : v));
  return t;
};

describe('checkTensor', () => {
  it('passes identical tensors of every width', () => {
    for (const dtype of ['uint8', 'float16', 'float32', 'float64', 'int64'] as const) {
      expect(checkTensor(tensor(dtype, [1, 2, 3]), tensor(dtype, [1, 2, 3]))).toEqual({ checked: 3, wrong: 0, mismatches: [] });
    }
  });
  it('counts wrong elements and shows the first ones with index, expected and actual', () => {
    const r = checkTensor(tensor('int32', [1, 9, 3, 8]), tensor('int32', [1, 2, 3, 4]));
    expect(r.wrong).toBe(2);
    expect(r.mismatches).toEqual([
      { index: 1, expected: '2', actual: '9' },
      { index: 3, expected: '4', actual: '8' },
    ]);
  });
  it('finds a difference in the high word of an 8-byte element', () => {
    expect(checkTensor(tensor('int64', [2 ** 40]), tensor('int64', [0])).wrong).toBe(1);
  });
  it('accepts float differences within the dtype tolerance only', () => {
    expect(checkTensor(tensor('float32', [1 + 1e-7]), tensor('float32', [1])).wrong).toBe(0);
    expect(checkTensor(tensor('float32', [1.001]), tensor('float32', [1])).wrong).toBe(1);
  });
  it('counts elements missing from a short output as wrong', () => {
    expect(checkTensor(tensor('uint8', [1]), tensor('uint8', [1, 2])).wrong).toBe(1);
  });
});

describe('checkLazy: the same verdict a window at a time', () => {
  it('matches checkTensor for every window size, with mismatch indices across windows', () => {
    const want = tensor(
      'int32',
      Array.from({ length: 23 }, (_, i) => i),
    );
    const got = tensor(
      'int32',
      Array.from({ length: 23 }, (_, i) => ([3, 4, 10, 17, 18, 19, 22].includes(i) ? -i : i)),
    );
    const whole = checkTensor(got, want);
    expect(whole.wrong).toBe(7);
    for (const window of [1, 2, 3, 5, 7, 23, 100]) expect(checkLazy(got, lazyTensor(want), { window })).toEqual(whole);
  });
  it('counts what a short output lacks and reads no window past it', () => {
    const want = lazyTensor(tensor('uint8', [1, 2, 3, 4, 5]));
    expect(checkLazy(tensor('uint8', [1, 9]), want, { window: 1 })).toEqual({
      checked: 5,
      wrong: 4,
      mismatches: [{ index: 1, expected: '2', actual: '9' }],
    });
  });
});
