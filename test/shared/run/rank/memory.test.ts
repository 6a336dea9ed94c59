import { describe, expect, it } from 'vitest';
import { cpuSegmentBytes, planMemoryNeed } from '../../../../src/shared/run/rank/memory';
import type { CollectiveAction, P2pAction, Plan, PlanAction, PlanStep } from '../../../../src/shared/plan/types';

const MiB = 1024 * 1024;
const DATA = { kind: 'arange_rank', start: 1 } as const;

let nextIndex = 0;
function step(action: PlanAction, extra: Partial<PlanStep> = {}): PlanStep {
  const index = nextIndex++;
  return {
    index,
    path: `steps[${index}]`,
    label: `step ${index}`,
    origin: { kind: 'step' },
    action,
    warmup: 0,
    iters: 1,
    timeoutMs: 60_000,
    async: false,
    asyncId: null,
    stream: 0,
    ...extra,
  };
}

function plan(world: number, steps: PlanStep[]): Plan {
  return { world, devices: null, streams: ['default', 's1', 's2'], steps, sweeps: [], pairs: [], compares: [] };
}

const collective = (op: CollectiveAction['op'], count: number, extra: Partial<CollectiveAction> = {}): CollectiveAction => ({
  kind: 'collective',
  op,
  dtype: 'float32',
  redop: 'sum',
  root: 0,
  count,
  inPlace: false,
  data: DATA,
  ...extra,
});
const p2p = (from: number, to: number, count: number): P2pAction => ({ kind: 'p2p', from, to, dtype: 'float32', count, data: DATA });

const hostBytes = (p: Plan, backend: 'cpu' | 'nccl' = 'cpu') => planMemoryNeed(p, backend).ranks.map((r) => r.hostBytes);

describe('memory a plan needs', () => {
  it("counts a collective's send and receive buffers, once when in place", () => {
    const M = MiB / 4; // float32 elements in 1 MiB
    expect(hostBytes(plan(2, [step(collective('all_reduce', M))]))).toEqual([2 * MiB, 2 * MiB]);
    expect(hostBytes(plan(2, [step(collective('all_reduce', M, { inPlace: true }))]))).toEqual([MiB, MiB]);
    // all_gather: send is count, recv count × world; in place, send is a slice of recv.
    expect(hostBytes(plan(4, [step(collective('all_gather', M))]))).toEqual(Array(4).fill(5 * MiB));
    expect(hostBytes(plan(4, [step(collective('all_gather', M, { inPlace: true }))]))).toEqual(Array(4).fill(4 * MiB));
    expect(hostBytes(plan(2, [step(collective('all_reduce', M, { dtype: 'float64' }))]))).toEqual([4 * MiB, 4 * MiB]);
  });

  it('doubles the buffers of an op that eats its input and runs more than once (the fresh check copy)', () => {
    const M = MiB / 4;
    expect(hostBytes(plan(2, [step(collective('all_reduce', M, { inPlace: true }), { iters: 5 })]))).toEqual([2 * MiB, 2 * MiB]);
    expect(hostBytes(plan(2, [step(collective('all_reduce', M, { inPlace: true }), { warmup: 1 })]))).toEqual([2 * MiB, 2 * MiB]);
    // Out of place the input survives: one set.
    expect(hostBytes(plan(2, [step(collective('all_reduce', M), { iters: 5 })]))).toEqual([2 * MiB, 2 * MiB]);
    // reduce_scatter in place: recv is a slice of send, which the op overwrites.
    expect(hostBytes(plan(2, [step(collective('reduce_scatter', M, { inPlace: true }), { iters: 3 })]))).toEqual([4 * MiB, 4 * MiB]);
  });

  it('takes the largest step, not the sum of steps that run one after another, and names it', () => {
    const need = planMemoryNeed(
      plan(2, [
        step(collective('all_reduce', 1024)),
        step(collective('all_reduce', MiB), { label: 'the big one' }),
        step(collective('broadcast', 1024)),
      ]),
      'cpu',
    );
    expect(need.ranks[0]).toMatchObject({ hostBytes: 8 * MiB, peakStep: 'the big one' });
  });

  it('gives p2p buffers to the two ranks that take part only', () => {
    expect(hostBytes(plan(3, [step(p2p(0, 2, MiB / 4))]))).toEqual([MiB, 0, MiB]);
    expect(hostBytes(plan(3, [step({ kind: 'group', items: [p2p(0, 1, MiB / 4), p2p(1, 0, MiB / 4)] })]))).toEqual([2 * MiB, 2 * MiB, 0]);
  });

  it('adds async steps in flight until the wait that ends them', () => {
    const M = MiB / 4;
    const steps = [
      step(collective('all_reduce', M), { async: true, asyncId: 'a', stream: 1 }),
      step(collective('all_reduce', M), { async: true, asyncId: 'b', stream: 2 }),
      step({ kind: 'wait', id: null }),
      step(collective('all_reduce', M)),
    ];
    expect(hostBytes(plan(2, steps))).toEqual([4 * MiB, 4 * MiB]);
    const waitedBetween = [steps[0], step({ kind: 'wait', id: 'a' }), steps[1], step({ kind: 'wait', id: 'b' })];
    expect(hostBytes(plan(2, waitedBetween))).toEqual([2 * MiB, 2 * MiB]);
  });

  it('holds every buffer of a compare block from its start (made ahead, staged on the GPU)', () => {
    const marker = { compare: 0, variant: 'on', repeat: 0 };
    const p = plan(2, [
      step({ kind: 'block-begin', ...marker }, { label: 'compare: on begin', origin: { kind: 'compare', ...marker } }),
      step(collective('all_reduce', MiB / 4), { origin: { kind: 'compare', ...marker } }),
      step(collective('all_reduce', MiB / 4, { inPlace: true }), { iters: 2, origin: { kind: 'compare', ...marker } }),
      step({ kind: 'block-end', ...marker }, { origin: { kind: 'compare', ...marker } }),
      step(collective('all_reduce', MiB / 4)),
    ]);
    const need = planMemoryNeed(p, 'nccl');
    // 2 MiB out of place + 2 × 1 MiB in place with its check copy, on the host and on the GPU.
    expect(need.ranks[0]).toMatchObject({ hostBytes: 4 * MiB, deviceBytes: 4 * MiB, peakStep: 'compare: on begin' });
  });

  it("keeps a stream's GEMM operands for the rest of the run, on the host for cpu and on the GPU for nccl", () => {
    const gemm = step({ kind: 'compute', dtype: 'float32', m: 512, n: 512, k: 512, ranks: null }, { stream: 2 });
    const operands = 3 * 512 * 512 * 4;
    const p = plan(2, [gemm, step(collective('all_reduce', MiB / 4), { stream: 1 })]);
    expect(hostBytes(p)).toEqual([operands + 2 * MiB, operands + 2 * MiB]);
    const nccl = planMemoryNeed(p, 'nccl').ranks[0];
    expect(nccl).toMatchObject({ hostBytes: 2 * MiB, deviceBytes: operands + 2 * MiB });
    // Half types are multiplied through float32 copies on the cpu backend.
    const half = plan(1, [step({ kind: 'compute', dtype: 'bfloat16', m: 512, n: 512, k: 512, ranks: null })]);
    expect(hostBytes(half)).toEqual([3 * 512 * 512 * (2 + 4)]);
    const someRanks = plan(2, [step({ kind: 'compute', dtype: 'float32', m: 512, n: 512, k: 512, ranks: [1] })]);
    expect(hostBytes(someRanks)).toEqual([0, operands]);
  });

  it("sizes the cpu backend's shared segment as native/cpu/shm_segment.cc lays it out", () => {
    // The sizes of the segments the addon's createUniqueId made in /dev/shm (default tuning).
    const measured: [number, number][] = [
      [1, 3_158_016],
      [2, 7_352_320],
      [3, 13_643_776],
      [4, 22_032_384],
      [8, 26_230_784],
      [17, 18_956_288],
      [64, 84_688_896],
    ];
    for (const [world, bytes] of measured) expect(cpuSegmentBytes(world), `world ${world}`).toBe(bytes);
    expect(cpuSegmentBytes(2, { slotBytes: 64 * 1024, mailboxBytes: 4096 })).toBeLessThan(MiB);
    expect(planMemoryNeed(plan(4, []), 'cpu').sharedBytes).toBe(cpuSegmentBytes(4));
    expect(planMemoryNeed(plan(4, []), 'nccl').sharedBytes).toBe(0);
  });
});
