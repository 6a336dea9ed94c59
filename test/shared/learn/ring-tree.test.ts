import { describe, expect, it } from 'vitest';
import { busiestLink, MAX_PLAYED_RANKS, ncclChoiceText, ringAllReduce, treeAllReduce } from '../../../src/shared/learn/ring-tree.js';
import { predictTimeUs } from '../../../src/shared/learn/model.js';

const link = { latencyUs: 5, peakGBps: 25 };
const S = 64 << 20;

describe('ring against tree', () => {
  it('the ring runs 2(n−1) stages and loads every link with 2(n−1)/n · S', () => {
    for (const n of [2, 3, 4, 8]) {
      const ring = ringAllReduce(n, S, link);
      expect(ring.stages).toHaveLength(2 * (n - 1));
      expect(ring.totals).toHaveLength(n === 2 ? 2 : n);
      for (const l of ring.totals) expect(l.bytes).toBeCloseTo((2 * (n - 1) * S) / n);
      expect(ring.timeUs).toBe(predictTimeUs('all_reduce', 'ring', n, S, link));
    }
  });

  it('the tree takes fewer stages than the ring past 3 ranks, up level by level and down the same links', () => {
    for (const n of [4, 5, 8, 16]) {
      const tree = treeAllReduce(n, S, link);
      expect(tree.stages.length).toBeLessThan(2 * (n - 1));
      const up = tree.stages.filter((s) => s.label.startsWith('reduce up'));
      const sentAt = new Map<string, number>();
      up.forEach((s, i) => s.links.forEach((l) => sentAt.set(`${l.from}>${l.to}`, i)));
      // Per tree n − 1 sends up, one per rank but the root: 2(n − 1) over both trees.
      expect(sentAt.size).toBe(2 * (n - 1));
      // Up the tree level by level, and down again along the same links the other way.
      const down = tree.stages.filter((s) => s.label.startsWith('broadcast down'));
      expect(up).toHaveLength(Math.floor(Math.log2(n)));
      expect(down.map((s) => s.links.map((l) => `${l.to}>${l.from}`).sort())).toEqual(
        up.reverse().map((s) => s.links.map((l) => `${l.from}>${l.to}`).sort()),
      );
      expect(tree.timeUs).toBe(predictTimeUs('all_reduce', 'tree', n, S, link));
    }
  });

  it('moves S/2 a link a stage in the tree, so the busiest link carries more than half of S', () => {
    const tree = treeAllReduce(8, S, link);
    for (const s of tree.stages) for (const l of s.links) expect(l.bytes).toBe(S / 2);
    expect(busiestLink(tree)).toBeGreaterThanOrEqual(S / 2);
  });

  it('draws nothing moving on one rank, and refuses more ranks than a drawing can hold', () => {
    expect(ringAllReduce(1, S, link).stages).toEqual([]);
    expect(treeAllReduce(1, S, link).stages).toEqual([]);
    expect(() => ringAllReduce(MAX_PLAYED_RANKS + 1, S, link)).toThrow(
      `ring and tree are drawn for 1 to ${MAX_PLAYED_RANKS} ranks, not 17`,
    );
  });

  it("says which algorithm NCCL chose from the step's counts", () => {
    expect(ncclChoiceText({ RING: 20 })).toBe('NCCL chose RING for this step.');
    expect(ncclChoiceText({ TREE: 2, RING: 18 })).toBe('NCCL varied: RING 18×, TREE 2×.');
    expect(ncclChoiceText(undefined)).toBeNull();
  });
});
