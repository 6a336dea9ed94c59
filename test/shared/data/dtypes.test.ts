// Each element type's storage (dtypes.ts): the typed array a tensor views its bytes through, and
// what an element reads back once stored, which must be the type's own rounding (its cast).
import { describe, expect, it } from 'vitest';
import { DTYPES, DTYPE_INFO, allocTensor, tensorView, type Dtype } from '../../../src/shared/data/dtypes';

/** 1/3 and values past each integer type's range, stored and read back. */
const STORED: Record<Dtype, [number, number | bigint]> = {
  float32: [1 / 3, Math.fround(1 / 3)],
  float64: [1 / 3, 1 / 3],
  float16: [1 / 3, 0.333251953125],
  bfloat16: [1 / 3, 0.333984375],
  float8_e4m3: [1 / 3, 0.34375],
  float8_e5m2: [1 / 3, 0.3125],
  int8: [200, -56],
  uint8: [-1, 255],
  int32: [2 ** 31, -(2 ** 31)],
  uint32: [-1, 2 ** 32 - 1],
  int64: [-1, -1n],
  uint64: [-1, 2n ** 64n - 1n],
};

describe('element types', () => {
  it('store a value rounded or wrapped as the type does, and read it back as its cast gives it', () => {
    for (const dtype of DTYPES) {
      const [value, stored] = STORED[dtype];
      const t = allocTensor(dtype, 3);
      t.set(1, typeof stored === 'bigint' ? BigInt(value) : value);
      expect([dtype, t.get(1)]).toEqual([dtype, stored]);
      expect([dtype, DTYPE_INFO[dtype].cast(value)]).toEqual([dtype, stored]);
      expect([dtype, t.get(0)]).toEqual([dtype, typeof stored === 'bigint' ? 0n : 0]);
    }
  });

  it("view their bytes through an array of their own width, so a slice's elements are the buffer's", () => {
    for (const dtype of DTYPES) {
      const { bytes } = DTYPE_INFO[dtype];
      const buffer = new Uint8Array(6 * bytes - 1); // a partial element at the end, dropped
      const t = tensorView(dtype, buffer.subarray(bytes));
      expect([dtype, t.length, t.raw.BYTES_PER_ELEMENT]).toEqual([dtype, 4, bytes]);
      t.set(0, typeof STORED[dtype][1] === 'bigint' ? 1n : 1);
      expect([dtype, buffer.subarray(0, bytes).every((b) => b === 0), buffer.subarray(bytes, 2 * bytes).some((b) => b !== 0)]).toEqual([
        dtype,
        true,
        true,
      ]);
    }
  });
});
