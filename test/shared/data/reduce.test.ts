import { describe, expect, it } from 'vitest';
import { reducer } from '../../../src/shared/data/reduce';
import {
  DTYPE_INFO,
  float16BitsToFloat32,
  float32ToFloat16Bits,
  float32ToBfloat16Bits,
  bfloat16BitsToFloat32,
  float32ToFloat8Bits,
  float8Table,
} from '../../../src/shared/data/dtypes';

describe('reductions', () => {
  it("int8 sum wraps like two's complement hardware", () => {
    expect(reducer('int8', 'sum')([100, 100])).toBe(-56);
  });
  it('uint8 prod wraps modulo 256', () => {
    expect(reducer('uint8', 'prod')([16, 17])).toBe(16);
  });
  it('int32 prod wraps modulo 2^32', () => {
    expect(reducer('int32', 'prod')([65536, 65536])).toBe(0);
    expect(reducer('int32', 'prod')([46341, 46341])).toBe(-2147479015);
  });
  it('int64 sum wraps modulo 2^64', () => {
    expect(reducer('int64', 'sum')([9223372036854775807n, 1n])).toBe(-9223372036854775808n);
  });
  it('uint32 and uint64 wrap modulo 2^32 and 2^64 and stay unsigned', () => {
    expect(reducer('uint32', 'sum')([4294967295, 2])).toBe(1);
    expect(reducer('uint32', 'prod')([65537, 65537])).toBe(131073);
    expect(reducer('uint32', 'max')([4294967295, 1])).toBe(4294967295);
    expect(reducer('uint32', 'avg')([4294967294, 4294967294])).toBe(2147483646); // the sum wraps first: (2^32 - 4) / 2
    expect(reducer('uint64', 'sum')([18446744073709551615n, 1n])).toBe(0n);
    expect(reducer('uint64', 'min')([18446744073709551615n, 7n])).toBe(7n);
    expect(DTYPE_INFO.uint32.cast(-1)).toBe(4294967295);
    expect(DTYPE_INFO.uint64.cast(-1)).toBe(18446744073709551615n);
  });
  it('integer avg truncates toward zero', () => {
    expect(reducer('int32', 'avg')([1, 2])).toBe(1);
    expect(reducer('int32', 'avg')([-1, -2])).toBe(-1);
    expect(reducer('int64', 'avg')([-1n, -2n])).toBe(-1n);
  });
  it('float16 sum rounds after every addition', () => {
    expect(reducer('float16', 'sum')([2048, 1, 1])).toBe(2048);
    expect(reducer('float16', 'sum')([1, 1, 2048])).toBe(2050);
  });
  it('bfloat16 sum rounds to 8 significant bits', () => {
    expect(reducer('bfloat16', 'sum')([256, 1])).toBe(256);
  });
  it('float32 sum is evaluated in float32, not double', () => {
    expect(reducer('float32', 'sum')([16777216, 1])).toBe(16777216);
    expect(reducer('float64', 'sum')([16777216, 1])).toBe(16777217);
  });
  it('min and max pick per element', () => {
    expect(reducer('float32', 'min')([3, -1, 2])).toBe(-1);
    expect(reducer('int64', 'max')([3n, -1n, 2n])).toBe(3n);
  });
  it('float avg divides the rounded sum', () => {
    expect(reducer('float32', 'avg')([1, 2])).toBe(1.5);
  });
});

describe('half-precision conversions', () => {
  it('float16 rounds to nearest even and saturates to infinity', () => {
    expect(float16BitsToFloat32(float32ToFloat16Bits(1 + 2 ** -11))).toBe(1);
    expect(float16BitsToFloat32(float32ToFloat16Bits(1 + 3 * 2 ** -11))).toBe(1 + 2 ** -9);
    expect(float16BitsToFloat32(float32ToFloat16Bits(70000))).toBe(Infinity);
    expect(float16BitsToFloat32(float32ToFloat16Bits(2 ** -24))).toBe(2 ** -24);
    expect(Number.isNaN(float16BitsToFloat32(float32ToFloat16Bits(NaN)))).toBe(true);
  });
  it('bfloat16 keeps the float32 exponent range', () => {
    expect(bfloat16BitsToFloat32(float32ToBfloat16Bits(1e30))).toBeCloseTo(1e30, -28);
    expect(bfloat16BitsToFloat32(float32ToBfloat16Bits(1 + 2 ** -8))).toBe(1);
  });
  it('integer casts wrap', () => {
    expect(DTYPE_INFO.uint8.cast(-1)).toBe(255);
    expect(DTYPE_INFO.int8.cast(200)).toBe(-56);
    expect(DTYPE_INFO.int64.cast(-3.7)).toBe(-3n);
  });
});

describe('bulk reductions', () => {
  it('reduceTensors agrees with the per-element reducer for every dtype, reduce op and world 1–8', async () => {
    const { DTYPES, DTYPE_INFO, allocTensor } = await import('../../../src/shared/data/dtypes');
    const { REDOPS, reduceTensors } = await import('../../../src/shared/data/reduce');
    const { fillTensor } = await import('../../../src/shared/data/patterns');
    for (const dtype of DTYPES) {
      for (const redop of REDOPS) {
        for (let world = 1; world <= 8; world++) {
          const parts = Array.from({ length: world }, (_, p) => {
            const t = allocTensor(dtype, 257);
            const big = !DTYPE_INFO[dtype].float;
            fillTensor(t, { kind: 'random', seed: 11, min: big ? -120 : -3, max: big ? 120 : 3 }, p);
            return t;
          });
          const bulk = reduceTensors(dtype, redop, parts);
          const one = reducer(dtype, redop);
          for (let i = 0; i < 257; i++) {
            const want = one(parts.map((t) => t.get(i)));
            const got = bulk.get(i);
            if (!(Number.isNaN(want as number) && Number.isNaN(got as number)))
              expect(got, `${dtype} ${redop} world ${world} [${i}]`).toBe(want);
          }
        }
      }
    }
  });
});

describe("float8 (NCCL's ncclFloat8e4m3 and ncclFloat8e5m2)", () => {
  it('every finite code decodes to a value that encodes back to it', () => {
    for (const format of ['float8_e4m3', 'float8_e5m2'] as const) {
      const table = float8Table(format);
      for (let code = 0; code < 256; code++) {
        const v = table[code];
        if (Number.isFinite(v) && v !== 0) expect(float32ToFloat8Bits(format, v), `${format} ${code}`).toBe(code);
      }
    }
  });
  it('rounds to nearest even and saturates to the largest finite value', () => {
    expect(DTYPE_INFO.float8_e4m3.cast(17)).toBe(16); // tie between 16 and 18: the even mantissa
    expect(DTYPE_INFO.float8_e4m3.cast(19)).toBe(20);
    expect(DTYPE_INFO.float8_e4m3.cast(1000)).toBe(448);
    expect(DTYPE_INFO.float8_e4m3.cast(-Infinity)).toBe(-448);
    expect(DTYPE_INFO.float8_e5m2.cast(1e9)).toBe(57344);
    expect(DTYPE_INFO.float8_e4m3.cast(2 ** -10)).toBe(0); // half the smallest subnormal: ties to 0
    expect(DTYPE_INFO.float8_e4m3.cast(3 * 2 ** -10)).toBe(2 ** -8);
    expect(Number.isNaN(DTYPE_INFO.float8_e5m2.cast(NaN))).toBe(true);
    expect(float8Table('float8_e4m3')[0x7f]).toBeNaN();
    expect(float8Table('float8_e5m2')[0x7c]).toBe(Infinity);
  });
  it('sums round after every step, through float16 as NCCL computes them', () => {
    expect(reducer('float8_e5m2', 'sum')([8, 1, 1])).toBe(8); // 9 ties to 8, and 8 + 1 again
    expect(reducer('float8_e5m2', 'sum')([1, 1, 8])).toBe(10);
    expect(reducer('float8_e4m3', 'sum')([448, 448])).toBe(448);
    expect(reducer('float8_e4m3', 'prod')([0.5, 0.375])).toBe(0.1875);
  });
});
