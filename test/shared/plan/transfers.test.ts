import { describe, expect, it } from 'vitest';
import { p2pPairs } from '../../../src/shared/plan/transfers.js';
import type { PairAction, PlanAction } from '../../../src/shared/plan/types.js';
import { allGather, sendRecv } from '../export/records.js';

const pair = (both: boolean, measure: PairAction['measure']) => ({ kind: 'pair', from: 2, to: 5, both, measure }) as PairAction;

describe("a step's sender → receiver pairs", () => {
  it('finds the transfers inside a group, both ways, and none in a collective', () => {
    const exchange: PlanAction = { kind: 'group', items: [sendRecv(0, 1, 4), sendRecv(1, 0, 4), allGather(4)] };
    expect(p2pPairs(exchange)).toEqual([
      { from: 0, to: 1 },
      { from: 1, to: 0 },
    ]);
    expect(p2pPairs(sendRecv(3, 2, 4))).toEqual([{ from: 3, to: 2 }]);
    expect(p2pPairs(allGather(4))).toEqual([]);
    expect(p2pPairs(undefined)).toEqual([]);
  });

  it('counts two sends between the same ranks of a group as one pair', () => {
    expect(p2pPairs({ kind: 'group', items: [sendRecv(0, 1, 4), sendRecv(0, 1, 8)] })).toEqual([{ from: 0, to: 1 }]);
  });

  it("gives a pair's measurement one way or both, and a copy none (the sender makes it alone)", () => {
    expect(p2pPairs(pair(false, 'bandwidth'))).toEqual([{ from: 2, to: 5 }]);
    expect(p2pPairs(pair(true, 'latency'))).toEqual([
      { from: 2, to: 5 },
      { from: 5, to: 2 },
    ]);
    expect(p2pPairs(pair(true, 'copy'))).toEqual([]);
  });
});
