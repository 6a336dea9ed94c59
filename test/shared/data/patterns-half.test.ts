// Filling a half-type tensor gives, element for element, the pattern's value rounded as the scalar
// conversion rounds it, and touches nothing outside the range asked for.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allocTensor,
  bfloat16BitsToFloat32,
  float16BitsToFloat32,
  float32ToBfloat16Bits,
  float32ToFloat16Bits,
} from '../../../src/shared/data/dtypes.js';
import { fillTensor, patternValue, type DataPattern } from '../../../src/shared/data/patterns.js';

const toBits = { float16: float32ToFloat16Bits, bfloat16: float32ToBfloat16Bits } as const;

const pattern: fc.Arbitrary<DataPattern> = fc.oneof(
  fc.record({
    kind: fc.constant('rank' as const),
    scale: fc.double({ noNaN: true, min: -1e6, max: 1e6 }),
    offset: fc.double({ noNaN: true, min: -1e6, max: 1e6 }),
  }),
  fc.record({
    kind: fc.constantFrom('arange' as const, 'arange_rank' as const),
    start: fc.double({ noNaN: true, min: -7e4, max: 7e4 }),
    step: fc.double({ noNaN: true, min: -3, max: 3 }),
    rankStride: fc.integer({ min: -5, max: 5 }),
  }),
  fc.record({ kind: fc.constant('constant' as const), value: fc.double() }),
  fc.record({
    kind: fc.constant('random' as const),
    seed: fc.integer(),
    min: fc.double({ noNaN: true, min: -1e5, max: 0 }),
    max: fc.double({ noNaN: true, min: 0, max: 1e5 }),
  }),
);

describe('half-type fills', () => {
  for (const dtype of ['float16', 'bfloat16'] as const) {
    it(`${dtype}: every element as stored one at a time, across chunk boundaries and offsets`, () => {
      fc.assert(
        fc.property(
          pattern,
          fc.integer({ min: 0, max: 7 }),
          fc.integer({ min: 0, max: 70_000 }),
          fc.integer({ min: 0, max: 5 }),
          fc.integer({ min: 0, max: 1 << 20 }),
          (p, rank, count, offset, from) => {
            const t = allocTensor(dtype, offset + count + 2);
            const raw = t.raw as Uint16Array;
            raw.fill(0xabcd);
            fillTensor(t, p, rank, offset, count, from);
            for (let i = 0; i < count; i++) {
              const want = toBits[dtype](patternValue(p, rank, from + i, dtype));
              if (raw[offset + i] !== want) return false;
            }
            // Nothing outside [offset, offset + count) was touched.
            return raw.slice(0, offset).every((x) => x === 0xabcd) && raw[offset + count] === 0xabcd && raw[offset + count + 1] === 0xabcd;
          },
        ),
        { numRuns: 60 },
      );
    });
  }

  it('converts every half value and the midpoints between neighbours as the scalar conversion does (round to nearest even)', () => {
    // Each float16 value decodes and re-encodes to itself; halfway between two neighbours goes to the even one.
    for (let h = 0; h < 0x10000; h++) {
      const v = float16BitsToFloat32(h);
      if (Number.isNaN(v)) continue;
      expect(float32ToFloat16Bits(v)).toBe(h);
      const b = bfloat16BitsToFloat32(h);
      if (!Number.isNaN(b)) expect(float32ToBfloat16Bits(b)).toBe(h);
    }
    expect(float32ToFloat16Bits(1 + 2 ** -11)).toBe(0x3c00); // tie: 1.0 (even) wins over 1 + 2^-10
    expect(float32ToFloat16Bits(1 + 3 * 2 ** -11)).toBe(0x3c02); // tie: 1 + 2^-9 (even) wins
    expect(float32ToFloat16Bits(65520)).toBe(0x7c00); // halfway to the next binade: infinity
  });
});
