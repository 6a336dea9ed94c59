// The descriptors' expected outputs against a naive simulation of each collective's meaning.
import { describe, expect, it } from 'vitest';
import { COLLECTIVES, COLLECTIVE_DESCRIPTORS, type CollectiveName } from '../../../src/shared/ops';
import { REDOPS, reduceTensors, type Redop } from '../../../src/shared/data/reduce';
import { allocTensor, DTYPE_INFO, type Dtype, type Scalar } from '../../../src/shared/data/dtypes';
import { lazyReduce, lazyTensor, materialize } from '../../../src/shared/data/lazy';

// float8_e5m2 is left out: its 2 mantissa bits do not hold every sum of eight 1s and 2s (9, 11, …),
// so rounding per step and rounding once differ; test/shared/data/reduce.test.ts covers its rounding.
const FAMILIES: Dtype[] = [
  'float32',
  'float64',
  'float16',
  'bfloat16',
  'float8_e4m3',
  'int8',
  'uint8',
  'int32',
  'uint32',
  'int64',
  'uint64',
];

// Values 1 or 2: every reduction of up to 8 of them is exact in every dtype, so the reference
// can use plain arithmetic and cast once.
const value = (rank: number, i: number) => 1 + ((rank * 3 + i) % 2);

function exactReduce(values: number[], redop: Redop, dtype: Dtype): Scalar {
  const n = values.length;
  const r =
    redop === 'sum' || redop === 'avg'
      ? values.reduce((a, b) => a + b, 0)
      : redop === 'prod'
        ? values.reduce((a, b) => a * b, 1)
        : redop === 'min'
          ? Math.min(...values)
          : Math.max(...values);
  const x = redop === 'avg' ? (DTYPE_INFO[dtype].float ? r / n : Math.trunc(r / n)) : r;
  return DTYPE_INFO[dtype].cast(x);
}

/** What recv holds on `rank`, by the collective's definition; null = no output. */
function simulate(
  op: CollectiveName,
  count: number,
  world: number,
  rank: number,
  root: number,
  redop: Redop,
  dtype: Dtype,
): Scalar[] | null {
  const cast = DTYPE_INFO[dtype].cast;
  const input = (p: number, len: number) => Array.from({ length: len }, (_, i) => value(p, i));
  const reduced = (len: number) =>
    Array.from({ length: len }, (_, i) =>
      exactReduce(
        Array.from({ length: world }, (_, p) => value(p, i)),
        redop,
        dtype,
      ),
    );
  const ranks = Array.from({ length: world }, (_, p) => p);
  switch (op) {
    case 'all_reduce':
      return reduced(count);
    case 'broadcast':
      return input(root, count).map(cast);
    case 'reduce':
      return rank === root ? reduced(count) : null;
    case 'all_gather':
    case 'all_gather_into_tensor':
      return ranks.flatMap((p) => input(p, count)).map(cast);
    case 'gather':
      return rank === root ? ranks.flatMap((p) => input(p, count)).map(cast) : null;
    case 'scatter':
      return input(root, count * world)
        .slice(rank * count, (rank + 1) * count)
        .map(cast);
    case 'reduce_scatter':
      return reduced(count * world).slice(rank * count, (rank + 1) * count);
    case 'reduce_scatter_tensor': {
      const c = count / world;
      return reduced(count).slice(rank * c, (rank + 1) * c);
    }
    case 'all_to_all':
      return ranks.flatMap((p) => input(p, count * world).slice(rank * count, (rank + 1) * count)).map(cast);
    case 'all_to_all_single': {
      const c = count / world;
      return ranks.flatMap((p) => input(p, count).slice(rank * c, (rank + 1) * c)).map(cast);
    }
  }
}

describe('expected outputs', () => {
  for (const op of COLLECTIVES) {
    const desc = COLLECTIVE_DESCRIPTORS[op];
    it(`${op} matches its definition for every reduce op, dtype family and world size 1–8`, () => {
      let compared = 0;
      for (let world = 1; world <= 8; world++) {
        const count = desc.countError(5 * world, world) ? 5 : 5 * world;
        for (const dtype of FAMILIES) {
          for (const redop of desc.reduces ? REDOPS : (['sum'] as Redop[])) {
            for (let rank = 0; rank < world; rank++) {
              const root = world - 1;
              const input = (p: number) => {
                const t = allocTensor(dtype, desc.buffers({ count, world, rank: p, root }).send);
                for (let i = 0; i < t.length; i++) t.set(i, DTYPE_INFO[dtype].cast(value(p, i)));
                return lazyTensor(t);
              };
              const lazy = desc.expected({
                count,
                world,
                rank,
                root,
                input,
                reduce: (parts) => lazyReduce(parts, (w) => reduceTensors(dtype, redop, w)),
              });
              const got = lazy && materialize(lazy);
              const want = simulate(op, count, world, rank, root, redop, dtype);
              if (want === null) {
                expect(got).toBeNull();
                continue;
              }
              expect(got).not.toBeNull();
              expect(desc.buffers({ count, world, rank, root }).recv).toBe(want.length);
              expect(Array.from({ length: got!.length }, (_, i) => got!.get(i))).toEqual(want);
              compared++;
            }
          }
        }
      }
      expect(compared).toBeGreaterThan(0);
    });
  }

  it('reduce_scatter_tensor and all_to_all_single refuse counts that do not divide by the world', () => {
    expect(COLLECTIVE_DESCRIPTORS.reduce_scatter_tensor.countError(10, 3)).toMatch(/not divisible by the world size 3/);
    expect(COLLECTIVE_DESCRIPTORS.all_to_all_single.countError(12, 3)).toBeNull();
  });
});

describe('bandwidth factors (nccl-tests)', () => {
  it('uses 2(n-1)/n for all_reduce', () => {
    expect(COLLECTIVE_DESCRIPTORS.all_reduce.busFactor(4)).toBe(1.5);
    expect(COLLECTIVE_DESCRIPTORS.all_reduce.busFactor(2)).toBe(1);
    expect(COLLECTIVE_DESCRIPTORS.all_reduce.busFactor(8)).toBe(1.75);
  });
  it('uses (n-1)/n for all_gather, reduce_scatter, all_to_all, gather and scatter', () => {
    for (const op of [
      'all_gather',
      'all_gather_into_tensor',
      'reduce_scatter',
      'reduce_scatter_tensor',
      'all_to_all',
      'all_to_all_single',
      'gather',
      'scatter',
    ] as const) {
      expect(COLLECTIVE_DESCRIPTORS[op].busFactor(4)).toBe(0.75);
    }
  });
  it('uses 1 for broadcast and reduce', () => {
    expect(COLLECTIVE_DESCRIPTORS.broadcast.busFactor(8)).toBe(1);
    expect(COLLECTIVE_DESCRIPTORS.reduce.busFactor(8)).toBe(1);
  });
  it("counts one rank's buffer for all_reduce and the whole buffer for all_gather", () => {
    expect(COLLECTIVE_DESCRIPTORS.all_reduce.algBytes(1024, 4, 4)).toBe(4096);
    expect(COLLECTIVE_DESCRIPTORS.all_gather.algBytes(1024, 4, 4)).toBe(16384);
    expect(COLLECTIVE_DESCRIPTORS.reduce_scatter_tensor.algBytes(1024, 4, 4)).toBe(4096);
    expect(COLLECTIVE_DESCRIPTORS.all_gather.countForBytes(16384, 4, 4)).toBe(1024);
  });
});
