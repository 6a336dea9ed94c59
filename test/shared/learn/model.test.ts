import { describe, expect, it } from 'vitest';
import { COLLECTIVES } from '../../../src/shared/ops/index.js';
import {
  algorithmsOf,
  busFactorOf,
  latencyFromMeasurement,
  linkBytes,
  modelHops,
  predictBusBandwidth,
  predictTimeUs,
  type ModelledOp,
} from '../../../src/shared/learn/model.js';
import { busBandwidthExplanation, busFactorFormula } from '../../../src/shared/learn/busbw.js';

// nccl-tests, doc/PERFORMANCE.md: the busbw factor of each test, written out by hand.
const NCCL_TESTS_FACTOR: Record<ModelledOp, (n: number) => number> = {
  all_reduce: (n) => (2 * (n - 1)) / n,
  all_gather: (n) => (n - 1) / n,
  all_gather_into_tensor: (n) => (n - 1) / n,
  reduce_scatter: (n) => (n - 1) / n,
  reduce_scatter_tensor: (n) => (n - 1) / n,
  all_to_all: (n) => (n - 1) / n,
  all_to_all_single: (n) => (n - 1) / n,
  gather: (n) => (n - 1) / n,
  scatter: (n) => (n - 1) / n,
  broadcast: () => 1,
  reduce: () => 1,
  send: () => 1,
  sendrecv: () => 1,
};

const OPS = Object.keys(NCCL_TESTS_FACTOR) as ModelledOp[];

describe('the α-β model', () => {
  it('covers every collective a sweep can run, send and sendrecv', () => {
    expect(new Set(OPS)).toEqual(new Set([...COLLECTIVES, 'send', 'sendrecv']));
  });

  it("uses nccl-tests' busbw factor for every op on 2 to 64 ranks", () => {
    for (const op of OPS) {
      for (let n = 2; n <= 64; n++) expect(busFactorOf(op, n), `${op} on ${n}`).toBeCloseTo(NCCL_TESTS_FACTOR[op](n), 12);
    }
  });

  it('times a ring all_reduce as 2(n−1) hops of α plus 2(n−1)/n of the bytes over β', () => {
    // 4 ranks, 1 MB, α = 10 µs, β = 100 GB/s: 6 × 10 µs + 1.5 MB / (100 GB/s) = 60 + 15 µs.
    const link = { latencyUs: 10, peakGBps: 100 };
    expect(modelHops('all_reduce', 'ring', 4)).toBe(6);
    expect(predictTimeUs('all_reduce', 'ring', 4, 1e6, link)).toBeCloseTo(75, 9);
    // algbw 1 MB / 75 µs = 13.33 GB/s, × 1.5 = 20 GB/s.
    expect(predictBusBandwidth('all_reduce', 'ring', 4, 1e6, link)).toBeCloseTo(20, 9);
  });

  it("times a tree all_reduce as 2⌈log₂n⌉ hops and 2S through each rank's link", () => {
    // 8 ranks, 8 MB, α = 5 µs, β = 200 GB/s: 6 × 5 µs + 16 MB / (200 GB/s) = 30 + 80 µs.
    const link = { latencyUs: 5, peakGBps: 200 };
    expect(modelHops('all_reduce', 'tree', 8)).toBe(6);
    expect(modelHops('all_reduce', 'tree', 5)).toBe(6);
    expect(predictTimeUs('all_reduce', 'tree', 8, 8e6, link)).toBeCloseTo(110, 9);
    expect(predictBusBandwidth('all_reduce', 'tree', 8, 8e6, link)).toBeCloseTo((8e6 / 110e3) * 1.75, 9);
    // Fewer hops than the ring on many ranks: the tree wins on latency, the ring on bandwidth.
    expect(modelHops('all_reduce', 'tree', 64)).toBeLessThan(modelHops('all_reduce', 'ring', 64));
    expect(linkBytes('all_reduce', 'tree', 64, 1)).toBeGreaterThan(linkBytes('all_reduce', 'ring', 64, 1));
  });

  it('times broadcast as a pipelined chain, all_gather as n−1 hops of S/n, send as one hop', () => {
    // broadcast, 4 ranks, 4 MB, α = 2 µs, β = 50 GB/s: 3 × 2 + 4 MB / (50 GB/s) = 6 + 80 µs.
    expect(predictTimeUs('broadcast', 'ring', 4, 4e6, { latencyUs: 2, peakGBps: 50 })).toBeCloseTo(86, 9);
    // all_gather, 8 ranks, 8 MB in all, α = 1 µs, β = 100 GB/s: 7 × 1 + 7 MB / (100 GB/s) = 7 + 70 µs.
    expect(predictTimeUs('all_gather', 'ring', 8, 8e6, { latencyUs: 1, peakGBps: 100 })).toBeCloseTo(77, 9);
    // send, 1 MB, α = 3 µs, β = 25 GB/s: 3 + 40 µs; busbw = algbw.
    expect(predictTimeUs('send', 'ring', 2, 1e6, { latencyUs: 3, peakGBps: 25 })).toBeCloseTo(43, 9);
    expect(predictBusBandwidth('send', 'ring', 2, 1e6, { latencyUs: 3, peakGBps: 25 })).toBeCloseTo(1e6 / 43e3, 9);
  });

  it('lets every ring reach β in busbw for large messages, and no faster', () => {
    const link = { latencyUs: 7, peakGBps: 123 };
    for (const op of OPS) {
      for (const n of [2, 3, 8]) {
        expect(predictBusBandwidth(op, 'ring', n, 1e15, link) / 123, `${op} on ${n}`).toBeCloseTo(1, 6);
        expect(predictBusBandwidth(op, 'ring', n, 1e6, link)).toBeLessThan(123);
      }
    }
  });

  it('solves α back from a time the model predicted', () => {
    for (const op of OPS) {
      for (const algorithm of algorithmsOf(op)) {
        const t = predictTimeUs(op, algorithm, 6, 4096, { latencyUs: 3.25, peakGBps: 40 });
        expect(latencyFromMeasurement(op, algorithm, 6, 4096, t, 40), `${op} ${algorithm}`).toBeCloseTo(3.25, 9);
      }
    }
    // A call faster than β allows has no latency left, not a negative one.
    expect(latencyFromMeasurement('broadcast', 'ring', 2, 1e9, 1, 10)).toBe(0);
  });

  it('knows the tree only for all_reduce, and predicts nothing crossing a link on 1 rank', () => {
    expect(algorithmsOf('all_reduce')).toEqual(['ring', 'tree']);
    expect(algorithmsOf('all_gather')).toEqual(['ring']);
    expect(algorithmsOf('send')).toEqual(['ring']);
    expect(modelHops('all_reduce', 'ring', 1)).toBe(0);
    expect(predictBusBandwidth('all_reduce', 'ring', 1, 1e6, { latencyUs: 1, peakGBps: 1 })).toBe(0);
  });
});

describe('algbw against busbw in words', () => {
  it("names nccl-tests' formula each op's descriptor computes", () => {
    const expected: Record<string, string> = { 2: '2(n−1)/n', 1: '(n−1)/n', 0: '1' };
    for (const op of OPS) {
      const kind = op === 'all_reduce' ? 2 : NCCL_TESTS_FACTOR[op](4) === 1 ? 0 : 1;
      expect(busFactorFormula(op)?.formula, op).toBe(expected[kind]);
    }
  });

  it('gives the factor for the op and world at hand', () => {
    expect(busBandwidthExplanation('all_reduce', 4)).toContain(
      'all_reduce on 4 ranks: busbw = algbw × 2(n−1)/n = × 1.5, because a ring all_reduce',
    );
    expect(busBandwidthExplanation('all_gather', 8)).toContain('all_gather on 8 ranks: busbw = algbw × (n−1)/n = × 0.875, because');
    expect(busBandwidthExplanation('broadcast', 3)).toContain(
      'broadcast on 3 ranks: busbw = algbw × 1, because each byte crosses each link once',
    );
    expect(busBandwidthExplanation('all_reduce', 1)).toContain('On 1 rank nothing crosses a link, so busbw is 0.');
  });
});
