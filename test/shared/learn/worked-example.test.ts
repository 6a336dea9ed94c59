import { describe, expect, it } from 'vitest';
import { exampleRows, ExampleError, showValue, workedExample, type WorkedExample } from '../../../src/shared/learn/worked-example.js';
import { COLLECTIVE_DESCRIPTORS, COLLECTIVES } from '../../../src/shared/ops/index.js';
import { reference } from './reference.js';

const strideOf = (e: WorkedExample) => Number(/rankStride (\d+)/.exec(e.data)![1]);

describe('worked examples', () => {
  it('give every rank of every collective what the hand-written reference says, on 2 to 8 ranks', () => {
    for (const op of COLLECTIVES) {
      for (let world = 2; world <= 8; world++) {
        const rooted = COLLECTIVE_DESCRIPTORS[op].rooted;
        for (const root of rooted ? [0, world - 1] : [undefined]) {
          const e = workedExample({ op, ranks: world, root });
          const stride = strideOf(e);
          expect(e.ranks).toHaveLength(world);
          for (const { rank, input, output } of e.ranks) {
            const want = reference(op, world, e.count!, root ?? 0, stride, rank);
            expect({ input, output }, `${op} on ${world} ranks, root ${root}, rank ${rank}`).toEqual(want);
            // Ranks' values never meet, so a learner can tell whose element is whose.
            if (input) expect((input as number[] | number[][]).flat().every((v) => Math.floor(v / stride) === rank)).toBe(true);
          }
        }
      }
    }
  });

  it('takes the count and root asked for', () => {
    const e = workedExample({ op: 'broadcast', ranks: 3, count: 2, root: 2 });
    expect(e).toMatchObject({ world: 3, count: 2, root: 2 });
    expect(e.ranks.map((r) => r.output)).toEqual([
      [20, 21],
      [20, 21],
      [20, 21],
    ]);
    // 3 ranks of 4 elements summed: 0+10+20 + 3i.
    expect(workedExample({ op: 'all_reduce', ranks: 3 }).ranks[1].output).toEqual([30, 33, 36, 39]);
  });

  it('picks a default count the op can split, and a stride no input reaches', () => {
    expect(workedExample({ op: 'all_to_all_single', ranks: 3 }).count).toBe(6);
    expect(workedExample({ op: 'reduce_scatter_tensor', ranks: 8 }).count).toBe(8);
    expect(workedExample({ op: 'all_reduce', ranks: 8 }).count).toBe(4);
    expect(strideOf(workedExample({ op: 'all_to_all', ranks: 8, count: 2 }))).toBe(100);
    expect(strideOf(workedExample({ op: 'all_reduce', ranks: 2, count: 10 }))).toBe(10);
  });

  it('shows send/recv as rank 0 sending its tensor to rank 1', () => {
    const e = workedExample({ op: 'send', ranks: 3, count: 3 });
    expect(e.ranks).toEqual([
      { rank: 0, input: [0, 1, 2], output: null },
      { rank: 1, input: null, output: [0, 1, 2] },
      { rank: 2, input: null, output: null },
    ]);
  });

  it("shows object collectives with each rank's JSON value", () => {
    const gather = workedExample({ op: 'gather_object', ranks: 3, root: 1 });
    expect(gather.ranks.map((r) => r.output)).toEqual([null, [{ rank: 0 }, { rank: 1 }, { rank: 2 }], null]);
    const scatter = workedExample({ op: 'scatter_object', ranks: 2 });
    expect(scatter.ranks).toEqual([
      { rank: 0, input: [{ rank: 0 }, { rank: 1 }], output: { rank: 0 } },
      { rank: 1, input: null, output: { rank: 1 } },
    ]);
    expect(workedExample({ op: 'broadcast_object', ranks: 2, root: 1 }).ranks.map((r) => r.output)).toEqual([{ rank: 1 }, { rank: 1 }]);
  });

  it('refuses numbers out of bounds, naming the option, the value and what was expected', () => {
    const refusal = (request: Parameters<typeof workedExample>[0]) => {
      try {
        workedExample(request);
      } catch (e) {
        expect(e).toBeInstanceOf(ExampleError);
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(refusal({ op: 'all_reduce', ranks: 0 })).toBe('--ranks 0: expected a whole number from 1 to 64');
    expect(refusal({ op: 'all_reduce', ranks: 65 })).toBe('--ranks 65: expected a whole number from 1 to 64');
    expect(refusal({ op: 'all_reduce', count: 257 })).toBe('--count 257: expected a whole number from 1 to 256');
    expect(refusal({ op: 'all_reduce', count: 2.5 })).toBe('--count 2.5: expected a whole number from 1 to 256');
    expect(refusal({ op: 'broadcast', ranks: 4, root: 4 })).toBe(
      '--root 4: expected a whole number from 0 to 3 (a rank of the 4-rank world)',
    );
    expect(refusal({ op: 'all_reduce', root: 1 })).toMatch(/^--root 1: all_reduce has no root/);
    expect(refusal({ op: 'all_gather', ranks: 64, count: 16 })).toBe(
      '--count 16 on 64 ranks: all_gather would give a rank a buffer of 1024 elements; a worked example shows at most 256 — use fewer ranks or a smaller count',
    );
    expect(refusal({ op: 'reduce_scatter_tensor', ranks: 4, count: 6 })).toMatch(
      /^--count 6: count 6 is not divisible by the world size 4/,
    );
    expect(refusal({ op: 'send', ranks: 1 })).toBe('--ranks 1: send/recv needs 2 ranks, one to send and one to receive');
    expect(refusal({ op: 'broadcast_object', count: 3 })).toMatch(/^--count 3: broadcast_object moves JSON values/);
    expect(refusal({ op: 'all_reduce', ranks: 64, count: 4 })).toBe('accepted');
  });

  it("lays out each rank's input and output as a learner reads them", () => {
    const { heading, rows } = exampleRows(workedExample({ op: 'reduce', ranks: 2, count: 2, root: 1 }));
    expect(heading).toBe(
      "reduce on 2 ranks, count 2, root 1: float32, rank r's element i is 10·r + i (arange_rank, rankStride 10); reduced with sum",
    );
    expect(rows).toEqual([
      ['rank 0  in ', '[0, 1]'],
      ['        out', 'nothing'],
      ['rank 1  in ', '[10, 11]'],
      ['        out', '[10, 12]'],
    ]);
    expect(
      showValue([
        [0, 1],
        [10, 11],
      ]),
    ).toBe('[[0, 1], [10, 11]]');
    expect(showValue({ rank: 2 })).toBe('{"rank": 2}');
  });
});
