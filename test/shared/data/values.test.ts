// Explicit values (the `values` data kind): every op's expected output, computed from the numbers
// written in the scenario, against a reference that applies each op's definition to plain lists.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DTYPE_INFO, type Dtype, type Scalar } from '../../../src/shared/data/dtypes';
import { materialize } from '../../../src/shared/data/lazy';
import { patternTensor } from '../../../src/shared/data/patterns';
import { REDOPS, type Redop } from '../../../src/shared/data/reduce';
import { valueMisfit, valuesIssues, valuesOfRank, type ValuesPattern } from '../../../src/shared/data/values';
import { expectedOutput } from '../../../src/shared/ops/expected';
import { COLLECTIVES, COLLECTIVE_DESCRIPTORS, type CollectiveName } from '../../../src/shared/ops';
import { compilePlan } from '../../../src/shared/plan/compile';
import type { CollectiveAction } from '../../../src/shared/plan/types';
import { scenarioSchema } from '../../../src/shared/scenario/schema';
import { LIMITS } from '../../../src/shared/scenario/limits';

// Small integers: every sum and product of up to five of them is exact in each of these types,
// so the reference computes in plain arithmetic and casts once.
const DTYPES: Dtype[] = ['float32', 'float64', 'int32', 'int64'];

function reduceReference(xs: number[], redop: Redop, dtype: Dtype): Scalar {
  const r =
    redop === 'sum' || redop === 'avg'
      ? xs.reduce((a, b) => a + b, 0)
      : redop === 'prod'
        ? xs.reduce((a, b) => a * b, 1)
        : redop === 'min'
          ? Math.min(...xs)
          : Math.max(...xs);
  return DTYPE_INFO[dtype].cast(redop === 'avg' ? (DTYPE_INFO[dtype].float ? r / xs.length : Math.trunc(r / xs.length)) : r);
}

/** What `rank` receives, by the op's definition applied to every rank's input list; null: nothing. */
function reference(op: CollectiveName, inputs: number[][], count: number, rank: number, root: number, redop: Redop, dtype: Dtype) {
  const world = inputs.length;
  const cast = (xs: number[]) => xs.map((x) => DTYPE_INFO[dtype].cast(x));
  const reduced = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) =>
      reduceReference(
        inputs.map((input) => input[from + i]),
        redop,
        dtype,
      ),
    );
  const gathered = (from: number, n: number) => cast(inputs.flatMap((input) => input.slice(from, from + n)));
  switch (op) {
    case 'broadcast':
      return cast(inputs[root]);
    case 'all_reduce':
      return reduced(0, count);
    case 'reduce':
      return rank === root ? reduced(0, count) : null;
    case 'all_gather':
    case 'all_gather_into_tensor':
      return gathered(0, count);
    case 'gather':
      return rank === root ? gathered(0, count) : null;
    case 'scatter':
      return cast(inputs[root].slice(rank * count, (rank + 1) * count));
    case 'reduce_scatter':
      return reduced(rank * count, count);
    case 'reduce_scatter_tensor':
      return reduced((rank * count) / world, count / world);
    case 'all_to_all':
      return gathered(rank * count, count);
    case 'all_to_all_single':
      return gathered((rank * count) / world, count / world);
  }
}

/** An op, a world, and each rank's input as the op sizes it (scatter: the root alone has one). */
const callArb = fc
  .record({
    op: fc.constantFrom(...COLLECTIVES),
    world: fc.integer({ min: 1, max: 5 }),
    chunk: fc.integer({ min: 1, max: 4 }),
    rootPick: fc.nat(),
    redop: fc.constantFrom(...REDOPS),
    dtype: fc.constantFrom(...DTYPES),
    form: fc.constantFrom('values', 'chunks', 'perRank', 'perRank-chunks'),
    seed: fc.array(fc.integer({ min: -4, max: 4 }), { minLength: 5 * 4 * 5, maxLength: 5 * 4 * 5 }),
  })
  .map((c) => {
    const desc = COLLECTIVE_DESCRIPTORS[c.op];
    const split = desc.countError(c.world, c.world) === null && desc.countError(1, c.world) !== null; // count divides by world
    const count = split ? c.chunk * c.world : c.chunk;
    const root = c.rootPick % c.world;
    const lengths = Array.from({ length: c.world }, (_, rank) => desc.buffers({ count, world: c.world, rank, root }).send);
    const same = c.form === 'values' || c.form === 'chunks';
    const inputs = lengths.map((n, rank) => (n === 0 ? [] : c.seed.slice((same ? 0 : rank) * 20, (same ? 0 : rank) * 20 + n)));
    const longest = Math.max(...lengths);
    const chunks = (xs: number[]) =>
      Array.from({ length: c.world }, (_, j) => xs.slice((j * xs.length) / c.world, ((j + 1) * xs.length) / c.world));
    const chunked = desc.chunkedInput;
    const data: ValuesPattern =
      c.form === 'values' || (c.form === 'chunks' && !chunked)
        ? { kind: 'values', values: inputs[lengths.indexOf(longest)] }
        : c.form === 'chunks'
          ? { kind: 'values', chunks: chunks(inputs[lengths.indexOf(longest)]) }
          : { kind: 'values', perRank: inputs.map((xs) => (c.form === 'perRank-chunks' && chunked && xs.length ? chunks(xs) : xs)) };
    // The same input on every rank that has one, for the forms that give one list to all.
    const seen = inputs.map((xs) => (same && xs.length ? inputs[lengths.indexOf(longest)] : xs));
    return { ...c, count, root, data, inputs: seen };
  });

describe('explicit values', () => {
  it("every op's expected output, on every rank, is the op's definition applied to the values written", () => {
    fc.assert(
      fc.property(callArb, ({ op, world, count, root, redop, dtype, data, inputs }) => {
        // Through the plan, as a run gets it: the values are accepted for this step as written.
        const plan = compilePlan(
          scenarioSchema.parse({ version: 1, name: 'v', world: { ranks: world }, steps: [{ op, count, root, redop, dtype, data }] }),
        );
        const action = plan.steps[0].action as CollectiveAction;
        for (let rank = 0; rank < world; rank++) {
          const lazy = expectedOutput(COLLECTIVE_DESCRIPTORS[op], { count, world, rank, root }, action);
          const want = reference(op, inputs, count, rank, root, redop, dtype);
          if (want === null) {
            expect(lazy).toBeNull();
            continue;
          }
          const got = materialize(lazy!);
          expect(Array.from({ length: got.length }, (_, i) => got.get(i))).toEqual(want);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a send delivers the sender’s list, read from any offset', () => {
    const data: ValuesPattern = { kind: 'values', perRank: [[], [3, 1, 4, 1, 5], []] };
    const t = patternTensor(data, 1, 'int8', 3, 2);
    expect([t.get(0), t.get(1), t.get(2)]).toEqual([4, 1, 5]);
  });

  it('chunks are one list, chunk after chunk', () => {
    expect(
      valuesOfRank(
        {
          kind: 'values',
          chunks: [
            [1, 2],
            [3, 4],
          ],
        },
        1,
      ),
    ).toEqual([1, 2, 3, 4]);
    expect(valuesOfRank({ kind: 'values', perRank: [[9], [[5], [6]]] }, 1)).toEqual([5, 6]);
  });
});

describe('explicit values that do not fit', () => {
  it.each([
    [300, 'int8', '300 does not fit int8: expected an integer in -128…127'],
    [-1, 'uint8', '-1 does not fit uint8: expected an integer in 0…255'],
    [1.5, 'int32', '1.5 is not an integer: int32 holds integers in -2147483648…2147483647'],
    [70000, 'float16', '70000 does not fit float16: expected a number in -65504…65504'],
    [500, 'float8_e4m3', '500 does not fit float8_e4m3: expected a number in -448…448'],
    [2 ** 53, 'int64', /^9007199254740992 does not fit int64: .*exact up to 2\^53/],
  ] as const)('%s in %s', (x, dtype, message) => {
    expect(valueMisfit(x, dtype)).toMatch(message);
  });

  it.each([
    [127, 'int8'],
    [0.1, 'float16'],
    [-448, 'float8_e4m3'],
    [Number.MAX_SAFE_INTEGER, 'uint64'],
    [1e300, 'float64'],
  ] as const)('%s fits %s', (x, dtype) => {
    expect(valueMisfit(x, dtype)).toBeNull();
  });

  const scatter = { dtype: 'float32' as const, world: 3, chunked: true, what: 'scatter', inputLength: (r: number) => (r === 0 ? 6 : 0) };
  it('names the list, the chunk or the number, and what was expected', () => {
    expect(valuesIssues({ kind: 'values', values: [1, 2, 3] }, scatter)).toEqual([
      { path: ['values'], message: "rank 0's input to scatter has 6 elements: expected 6 numbers; got 3" },
    ]);
    expect(
      valuesIssues(
        {
          kind: 'values',
          chunks: [
            [1, 2],
            [3, 4],
          ],
        },
        scatter,
      ),
    ).toEqual([{ path: ['chunks'], message: "expected 3 chunks, one per rank of the world (rank 0's input to scatter); got 2" }]);
    expect(valuesIssues({ kind: 'values', chunks: [[1, 2], [3], [5, 6]] }, scatter)).toEqual([
      { path: ['chunks', 1], message: 'expected 2 numbers (chunk 1, for rank 1, of scatter); got 1' },
    ]);
    expect(valuesIssues({ kind: 'values', perRank: [[1, 2, 3, 4, 5, 6], [1], []] }, scatter)).toEqual([
      { path: ['perRank', 1], message: 'rank 1 passes no input to scatter (only rank 0 does): expected []; got 1' },
    ]);
    expect(valuesIssues({ kind: 'values', perRank: [[1, 2, 3, 4, 5, 6], []] }, scatter)).toEqual([
      { path: ['perRank'], message: 'expected one list per rank: the world has 3 ranks, perRank has 2' },
    ]);
    const allReduce = { ...scatter, dtype: 'uint8' as const, chunked: false, what: 'all_reduce', inputLength: () => 2 };
    expect(valuesIssues({ kind: 'values', chunks: [[1], [2], [3]] }, allReduce)[0].message).toBe(
      'all_reduce takes one tensor, not a list of one chunk per rank: expected a flat list of 2 numbers',
    );
    expect(valuesIssues({ kind: 'values', values: [-1, 256] }, allReduce)).toEqual([
      { path: ['values', 0], message: '-1 does not fit uint8: expected an integer in 0…255' },
      { path: ['values', 1], message: '256 does not fit uint8: expected an integer in 0…255' },
    ]);
  });

  it(`refuses more than ${LIMITS.values} numbers in one values data, and none or two of its lists`, () => {
    const parse = (data: unknown) =>
      scenarioSchema.safeParse({ version: 1, name: 'v', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 1, data }] });
    const big = parse({ kind: 'values', chunks: [new Array(LIMITS.values).fill(0), [1]] });
    expect(big.success).toBe(false);
    expect(big.error!.issues[0]).toMatchObject({
      path: ['steps', 0, 'data'],
      message: `expected at most ${LIMITS.values} numbers in one "values" data; got ${LIMITS.values + 1}`,
    });
    expect(parse({ kind: 'values' }).error!.issues[0].message).toMatch(/^expected exactly one of "values" .* got none$/);
    expect(parse({ kind: 'values', values: [1], perRank: [[1], [2]] }).error!.issues[0].message).toMatch(/got "values" and "perRank"$/);
    expect(parse({ kind: 'values', values: [1] }).success).toBe(true);
  });
});
