import { describe, expect, it } from 'vitest';
import { checkTensor } from '../../src/shared/check';
import { allocTensor } from '../../src/shared/dtypes';

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
    expect(r.mismatches).toEqual([{ index: 1, expected: '2', actual: '9' }, { index: 3, expected: '4', actual: '8' }]);
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
