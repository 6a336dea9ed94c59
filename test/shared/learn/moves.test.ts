// The chunk schedules against the op descriptors: run with real inputs, every schedule must end
// with what the descriptor says each rank's output holds, on 1 to 8 ranks and every root.
import { describe, expect, it } from 'vitest';
import {
  applyStage,
  chunkRange,
  collectiveMoves,
  initialState,
  p2pMoves,
  statesOf,
  type MoveSchedule,
} from '../../../src/shared/learn/moves';
import { outputValues, parsePreview, slotReducer, slotValues } from '../../../src/shared/learn/values';
import { COLLECTIVES, COLLECTIVE_DESCRIPTORS, type CollectiveName } from '../../../src/shared/ops';
import { lazyPattern, lazyReduce, materialize } from '../../../src/shared/data/lazy';
import { patternTensor } from '../../../src/shared/data/patterns';
import { reduceTensors, type Redop } from '../../../src/shared/data/reduce';
import type { Scalar, Tensor } from '../../../src/shared/data/dtypes';

const values = (t: Tensor): Scalar[] => Array.from({ length: t.length }, (_, i) => t.get(i));
const data = { kind: 'arange_rank', start: 1 } as const;

/** A count every op accepts on `world` ranks (the _single and _tensor variants split it by world). */
const countFor = (world: number) => world * 3;

function descriptorOutputs(op: CollectiveName, world: number, root: number, redop: Redop): (Scalar[] | null)[] {
  const desc = COLLECTIVE_DESCRIPTORS[op];
  const count = countFor(world);
  return Array.from({ length: world }, (_, rank) => {
    const shape = { count, world, rank, root };
    const expected = desc.expected({
      ...shape,
      input: (p) => lazyPattern(data, p, 'float32', desc.buffers({ ...shape, rank: p }).send),
      reduce: (parts) => lazyReduce(parts, (w) => reduceTensors('float32', redop, w)),
    });
    return expected && expected.length ? values(materialize(expected)) : null;
  });
}

function scheduleOutputs(op: CollectiveName, world: number, root: number, redop: Redop): (Scalar[] | null)[] {
  const desc = COLLECTIVE_DESCRIPTORS[op];
  const s = collectiveMoves(op, world, root);
  const inputs = Array.from({ length: world }, (_, rank) => {
    const send = desc.buffers({ count: countFor(world), world, rank, root }).send;
    return send ? values(patternTensor(data, rank, 'float32', send)) : null;
  });
  const states = statesOf(s);
  return outputValues(s, inputs, states[states.length - 1], slotReducer('float32', redop, world));
}

describe('collective move schedules', () => {
  for (const op of COLLECTIVES) {
    it(`${op} ends with the descriptor's expected output on 1 to 8 ranks, every root`, () => {
      for (let world = 1; world <= 8; world++) {
        const roots = COLLECTIVE_DESCRIPTORS[op].rooted ? Array.from({ length: world }, (_, r) => r) : [0];
        for (const root of roots) {
          for (const redop of ['sum', 'max'] as Redop[]) {
            expect(scheduleOutputs(op, world, root, redop), `${op} on ${world} ranks, root ${root}, ${redop}`).toEqual(
              descriptorOutputs(op, world, root, redop),
            );
          }
        }
      }
    });
  }

  it('all_reduce takes 2(n − 1) ring stages, each rank sending one chunk to the next rank per stage', () => {
    const s = collectiveMoves('all_reduce', 5, 0);
    expect(s.stages).toHaveLength(8);
    for (const stage of s.stages) {
      expect(stage.transfers.map((t) => [t.from, t.to])).toEqual([
        [0, 1],
        [1, 2],
        [2, 3],
        [3, 4],
        [4, 0],
      ]);
    }
    expect(s.stages.slice(0, 4).every((st) => st.transfers.every((t) => t.combine === 'reduce'))).toBe(true);
    expect(s.stages.slice(4).every((st) => st.transfers.every((t) => t.combine === 'copy'))).toBe(true);
  });

  it("after all_reduce's reduce-scatter half, rank r holds chunk r + 1 reduced over every rank", () => {
    const s = collectiveMoves('all_reduce', 4, 0);
    const afterReduceScatter = statesOf(s)[3];
    for (let r = 0; r < 4; r++) {
      expect(afterReduceScatter[r][(r + 1) % 4].map((p) => p.rank)).toEqual([0, 1, 2, 3]);
    }
  });

  it('broadcast pipelines n chunks along the chain from the root in n + n − 2 stages', () => {
    const s = collectiveMoves('broadcast', 4, 2);
    expect(s.stages).toHaveLength(6);
    expect(s.stages[0].transfers).toEqual([{ from: 2, to: 3, source: 'work', fromSlot: 0, toSlot: 0, combine: 'copy' }]);
    // Stage 3: chunk 2 leaves the root while chunk 1 and chunk 0 travel further down the chain.
    expect(s.stages[2].transfers.map((t) => [t.from, t.to, t.fromSlot])).toEqual([
      [2, 3, 2],
      [3, 0, 1],
      [0, 1, 0],
    ]);
    const final = statesOf(s).at(-1)!;
    expect(final.every((slots) => slots.every((c, j) => c.length === 1 && c[0].rank === 2 && c[0].chunk === j))).toBe(true);
  });

  it('non-root ranks start broadcast with nothing in their output buffer', () => {
    const start = initialState(collectiveMoves('broadcast', 3, 1));
    expect(start[0].every((c) => c.length === 0)).toBe(true);
    expect(start[1].map((c) => c[0])).toEqual([
      { rank: 1, chunk: 0 },
      { rank: 1, chunk: 1 },
      { rank: 1, chunk: 2 },
    ]);
  });

  it('reducing the same chunk twice is refused', () => {
    const s = collectiveMoves('all_reduce', 2, 0);
    const once = applyStage(s, initialState(s), s.stages[0]);
    expect(() => applyStage(s, once, s.stages[0])).toThrow(/reduced twice/);
  });

  it('a send moves one chunk from the sender to the receiver and nothing else', () => {
    const s = p2pMoves(4, 3, 1);
    expect(s.stages).toEqual([
      { label: 'send', transfers: [{ from: 3, to: 1, source: 'input', fromSlot: 0, toSlot: 0, combine: 'copy' }] },
    ]);
    const final = statesOf(s).at(-1)!;
    expect(final[1]).toEqual([[{ rank: 3, chunk: 0 }]]);
    expect(final[0]).toEqual([]);
  });
});

describe('values behind the slots', () => {
  it('a partial avg is a sum so far and the full one divides by the world', () => {
    const reduce = slotReducer('float32', 'avg', 4);
    expect(reduce([1, 2])).toBe(3);
    expect(reduce([1, 2, 3, 6])).toBe(3);
  });

  it('a slot reduced from two ranks shows the element-wise reduction of their chunks', () => {
    const s = collectiveMoves('all_reduce', 2, 0);
    const inputs = [
      [1, 2, 3, 4],
      [10, 20, 30, 40],
    ];
    expect(
      slotValues(
        s,
        inputs,
        [
          { rank: 0, chunk: 1 },
          { rank: 1, chunk: 1 },
        ],
        slotReducer('float32', 'sum', 2),
      ),
    ).toEqual([33, 44]);
    expect(
      slotValues(
        s,
        [inputs[0], null],
        [
          { rank: 0, chunk: 1 },
          { rank: 1, chunk: 1 },
        ],
        slotReducer('float32', 'sum', 2),
      ),
    ).toBeNull();
  });

  it('chunks of a length that does not divide give the extra elements to the last chunks', () => {
    expect([0, 1, 2, 3].map((c) => chunkRange(3, 4, c))).toEqual([
      [0, 0],
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
  });

  it('previews parse as the rank process writes them', () => {
    expect(parsePreview('[1, 2.5, -3]', 'float32')).toEqual([1, 2.5, -3]);
    expect(parsePreview('[[1, 1], [2, nan]]', 'float32')).toEqual([1, 1, 2, NaN]);
    expect(parsePreview('[inf, -inf]', 'float64')).toEqual([Infinity, -Infinity]);
    expect(parsePreview('[9007199254740993]', 'int64')).toEqual([9007199254740993n]);
    expect(parsePreview('[1] | [2]', 'float32')).toBeNull();
    expect(parsePreview('{"a": 1}', 'float32')).toBeNull();
    expect(parsePreview(null, 'float32')).toBeNull();
  });
});

/** Every schedule's transfers stay inside the world and its slots. */
function wellFormed(s: MoveSchedule): boolean {
  return s.stages.every((st) =>
    st.transfers.every(
      (t) =>
        t.from >= 0 &&
        t.from < s.world &&
        t.to >= 0 &&
        t.to < s.world &&
        t.toSlot < s.workSlots[t.to] &&
        t.fromSlot < (t.source === 'input' ? s.inputChunks[t.from] : s.workSlots[t.from]),
    ),
  );
}

it('every schedule stays inside its world and buffers', () => {
  for (const op of COLLECTIVES)
    for (let world = 1; world <= 8; world++) expect(wellFormed(collectiveMoves(op, world, world - 1)), `${op} ${world}`).toBe(true);
});
