// Data the backend makes and checks itself (native/common/data_program.h, the same code nvcc compiles for
// the GPU), run here on the cpu backend's host loop: its fill is the host's fill bit for bit, and
// its check finds exactly the wrong elements the host's check finds, on every collective's output.
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkTensor } from '../../src/shared/data/check';
import { BACKEND_DATA_DTYPES, expectProgram, nativePattern, type NativeData } from '../../src/shared/data/data-program';
import { allocTensor, type Dtype, type Tensor } from '../../src/shared/data/dtypes';
import { materialize } from '../../src/shared/data/lazy';
import { COLLECTIVE_DESCRIPTORS, COLLECTIVES } from '../../src/shared/ops/index';
import { expectedOutput } from '../../src/shared/ops/expected';
import { patternTensor, type DataPattern } from '../../src/shared/data/patterns';
import { REDOPS, type Redop } from '../../src/shared/data/reduce';
import type { NativeComm } from '../../src/addon/native-api';
import { cpuCommInit, createId } from './ranks';

process.env.CLAB_DATA = 'backend';
const comms: NativeComm[] = [];
afterAll(() => comms.forEach((c) => c.destroy()));

/** A one-rank cpu communicator: its all_reduce copies send to recv, then the backend checks recv. */
async function soloComm(): Promise<NativeComm> {
  const comm = await cpuCommInit(createId(1), 0, 1);
  comms.push(comm);
  return comm;
}

const dtypes = [...BACKEND_DATA_DTYPES];
const finite = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
const patterns: fc.Arbitrary<DataPattern> = fc.oneof(
  fc.record({ kind: fc.constant('constant' as const), value: finite(-1e6, 1e6) }),
  fc.record({ kind: fc.constant('rank' as const), scale: finite(-100, 100), offset: finite(-1e4, 1e4) }),
  fc.record({
    kind: fc.constant('arange' as const),
    start: finite(-1e4, 1e4),
    step: finite(-10, 10),
    rankStride: fc.integer({ min: -1000, max: 1000 }),
  }),
  fc.record({ kind: fc.constant('arange_rank' as const), start: fc.integer({ min: -100, max: 100 }), step: fc.constantFrom(1, 0.5, -2) }),
  fc.record({
    kind: fc.constant('random' as const),
    seed: fc.integer({ min: 0, max: 2 ** 31 }),
    min: fc.integer({ min: -50, max: 0 }),
    max: fc.integer({ min: 1, max: 50 }),
  }),
);

function data(dtype: Dtype, pattern: DataPattern, extra: Partial<NativeData>): NativeData {
  return { pattern: nativePattern(pattern, dtype)!, result: new Float64Array([-1, -1]), ...extra };
}

describe('data the backend makes (data_program.h on the cpu backend)', () => {
  it('fills a buffer exactly as the host fills it, for every type and pattern', async () => {
    const comm = await soloComm();
    expect(comm.makesData).toBe(true);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...dtypes),
        patterns,
        fc.integer({ min: 0, max: 7 }),
        fc.integer({ min: 1, max: 3000 }),
        async (dtype, pattern, rank, n) => {
          const send = allocTensor(dtype, n);
          const recv = allocTensor(dtype, n);
          const d = data(dtype, pattern, { fill: { rank } });
          await comm.enqueue(0, { op: 'all_reduce', dtype, redop: 'sum', count: n, send: send.bytes, recv: recv.bytes, data: d });
          expect(Buffer.from(send.bytes).equals(Buffer.from(patternTensor(pattern, rank, dtype, n).bytes))).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("finds the wrong elements the host finds in any collective's output (count and first index)", async () => {
    const comm = await soloComm();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...COLLECTIVES),
        fc.constantFrom(...dtypes),
        fc.constantFrom(...REDOPS),
        patterns,
        fc.integer({ min: 1, max: 5 }),
        fc.nat(),
        fc.integer({ min: 1, max: 300 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
        async (op, dtype, redop: Redop, pattern, world, pick, count, corrupt) => {
          const desc = COLLECTIVE_DESCRIPTORS[op];
          const rank = pick % world;
          const shape = { count: count * world, world, rank, root: (pick >> 3) % world };
          const expected = expectedOutput(desc, shape, { data: pattern, dtype, redop });
          if (!expected || expected.length === 0) return; // no output on this rank
          const program = expectProgram(expected, pattern);
          expect(program, `${op} on rank ${rank} of ${world}`).not.toBeNull();
          const output: Tensor = materialize(expected);
          const copy = allocTensor(dtype, output.length);
          copy.bytes.set(output.bytes);
          for (const [at, byte] of corrupt) copy.bytes[at % copy.bytes.length] = byte;
          const recv = allocTensor(dtype, copy.length);
          const d = data(dtype, pattern, { expect: program! });
          // The program reduces by the op's redop; a one-rank all_reduce of any redop copies send to recv.
          await comm.enqueue(0, { op: 'all_reduce', dtype, redop, count: copy.length, send: copy.bytes, recv: recv.bytes, data: d });
          const host = checkTensor(recv, output);
          expect([d.result[0], d.result[1]], `${op} ${dtype} ${redop} on rank ${rank} of ${world}`).toEqual([
            host.wrong,
            host.mismatches[0]?.index ?? -1,
          ]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses data it cannot make, and a program that does not cover the output, naming the field', async () => {
    const comm = await soloComm();
    const t = allocTensor('float32', 8);
    await expect(
      comm.enqueue(0, {
        op: 'all_reduce',
        dtype: 'float32',
        redop: 'sum',
        count: 8,
        send: t.bytes,
        recv: allocTensor('float32', 8).bytes,
        data: { ...data('float32', { kind: 'constant', value: 1 }, {}), result: new Float64Array(1) },
      }),
    ).rejects.toMatchObject({ code: 'CLAB_INVALID_ARGUMENT', message: 'op.data.result must hold 2 elements (wrong, first)' });
    await expect(
      comm.enqueue(0, {
        op: 'all_reduce',
        dtype: 'float32',
        redop: 'sum',
        count: 8,
        send: t.bytes,
        recv: allocTensor('float32', 8).bytes,
        data: data('float32', { kind: 'constant', value: 1 }, { expect: Float64Array.from([4, 1, 0, 0]) }),
      }),
    ).rejects.toMatchObject({ message: 'op.data.expect covers 4 elements but recv holds 8 on this rank' });
    await expect(
      comm.enqueue(0, {
        op: 'all_reduce',
        dtype: 'float32',
        redop: 'sum',
        count: 8,
        send: t.bytes,
        recv: allocTensor('float32', 8).bytes,
        data: data('float32', { kind: 'constant', value: 1 }, { expect: Float64Array.from([8, 3, 0, 0]) }),
      }),
    ).rejects.toMatchObject({
      message: expect.stringContaining('op.data.expect[0]: the segment names 3 terms but the program ends first'),
    });
  });
});
