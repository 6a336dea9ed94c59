// Which kernel NCCL ran for each call, from its INFO lines (src/shared/run/nccl/nccl-kernels.ts). The lines
// below are NCCL's format strings filled in as NCCL fills them: src/scheduler/symmetric_sched.cc
// (2.28–2.30) and src/enqueue.cc (2.27), after src/debug.cc's prefix "host:pid:tid [cudaDev] NCCL INFO ".
import { describe, expect, it } from 'vitest';
import { compilePlan } from '../../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../../src/shared/scenario/schema';
import {
  describeRan,
  kernelsByStep,
  ncclCallOf,
  ncclInfoSubsystems,
  parseNcclKernelLine,
} from '../../../../src/shared/run/nccl/nccl-kernels';

// "%s [Symmetric]: %ld Bytes -> Kernel %s nchannels %d nthreads %d nWorks %d" (2.28 to 2.30)
const symmetric = (func: string, bytes: number, kernel: string) =>
  `gpu-a:4242:4242 [0] NCCL INFO ${func} [Symmetric]: ${bytes} Bytes -> Kernel ${kernel} nchannels 16 nthreads 512 nWorks 1`;
// "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}" (2.27 to 2.30)
const other = (func: string, bytes: number, algo: string, proto: string) =>
  `gpu-a:4242:4242 [0] NCCL INFO ${func}: ${bytes} Bytes -> Algo ${algo} proto ${proto} channel{Lo..Hi}={0..23}`;

const scenario = (steps: unknown[], extra: object = {}) =>
  scenarioSchema.parse({ version: 1, name: 't', world: { ranks: 2 }, steps, ...extra });

describe("NCCL's INFO lines of each call's kernel", () => {
  it('reads the symmetric kernel, the algorithm and protocol, and the hierarchical copy engine, and nothing else', () => {
    expect(parseNcclKernelLine(symmetric('AllReduce', 1048576, 'AllReduce_RSxLD_AGxST'))).toEqual({
      func: 'AllReduce',
      bytes: 1048576,
      kind: 'symmetric',
      kernel: 'AllReduce_RSxLD_AGxST',
    });
    // 2.27's line, without nWorks, and a timestamp NCCL_DEBUG_TIMESTAMP_FORMAT put first.
    expect(
      parseNcclKernelLine(
        '[2026-05-01 10:00:00] gpu-a:1:2 [1] NCCL INFO AllGather [Symmetric]: 8 Bytes -> Kernel AllGather_LL nchannels 1 nthreads 512',
      ),
    ).toMatchObject({ func: 'AllGather', bytes: 8, kind: 'symmetric', kernel: 'AllGather_LL' });
    expect(parseNcclKernelLine(other('ReduceScatter', 4096, 'RING', 'LL'))).toEqual({
      func: 'ReduceScatter',
      bytes: 4096,
      kind: 'other',
      kernel: 'RING/LL',
    });
    // "%s [Hierarchical CE]: %ld Bytes -> RMA proxy + CE" (src/ce_coll.cc, 2.30)
    expect(parseNcclKernelLine('h:1:1 [0] NCCL INFO AllGather [Hierarchical CE]: 65536 Bytes -> RMA proxy + CE')).toMatchObject({
      kind: 'other',
      kernel: 'hierarchical CE',
    });
    for (const line of [
      'gpu-a:4242:4242 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] via P2P/CUMEM/read',
      'gpu-a:4242:4242 [0] NCCL INFO AllReduce: opCount 3 sendbuff 0x7f',
      'AllReduce: 8 Bytes -> Algo RING proto LL', // not NCCL's: no "NCCL INFO"
    ])
      expect(parseNcclKernelLine(line)).toBeNull();
  });

  it('gives each collective the function and bytes NCCL names its calls by', () => {
    expect(
      ncclCallOf(
        {
          kind: 'collective',
          op: 'all_reduce',
          dtype: 'float32',
          redop: 'sum',
          root: 0,
          count: 256,
          inPlace: true,
          data: { kind: 'rank' },
        },
        4,
      ),
    ).toEqual({
      func: 'AllReduce',
      bytes: 1024,
    });
    // all_gather's call counts what one rank sends; reduce_scatter's what one rank receives.
    const [ag, rs] = compilePlan(
      scenario([
        { op: 'all_gather', count: 8, dtype: 'float16' },
        { op: 'reduce_scatter', count: 8 },
      ]),
    ).steps;
    expect(ncclCallOf(ag.action, 2)).toEqual({ func: 'AllGather', bytes: 16 });
    expect(ncclCallOf(rs.action, 2)).toEqual({ func: 'ReduceScatter', bytes: 32 });
    expect(ncclCallOf({ kind: 'barrier' }, 2)).toBeNull();
  });

  it("counts each step's calls by kernel from the lines of the ranks that began it, a late line included, and no line-up's", () => {
    const plan = compilePlan(
      scenario([
        { op: 'sweep', collective: 'all_reduce', minBytes: 8, maxBytes: 16, registration: 'window' },
        { op: 'all_reduce', count: 2 },
      ]),
    );
    const began = new Map([
      ['0/0', 100],
      ['0/1', 200],
      ['0/2', 300],
      ['1/0', 100],
    ]);
    const logs = [
      { rank: 0, atNs: 110, text: other('AllReduce', 4, 'RING', 'LL') }, // the line-up's one float
      { rank: 0, atNs: 120, text: symmetric('AllReduce', 8, 'AllReduce_AGxLL_R') },
      { rank: 0, atNs: 130, text: symmetric('AllReduce', 8, 'AllReduce_AGxLL_R') },
      // 8 B's last line, read after rank 0 began the 16 B step.
      { rank: 0, atNs: 205, text: symmetric('AllReduce', 8, 'AllReduce_AGxLL_R') },
      { rank: 0, atNs: 210, text: symmetric('AllReduce', 16, 'AllReduce_AGxLL_R') },
      { rank: 0, atNs: 220, text: other('AllReduce', 16, 'RING', 'LL') },
      { rank: 0, atNs: 310, text: other('AllReduce', 8, 'RING', 'LL') },
      { rank: 0, atNs: 320, text: 'gpu-a:1:1 [0] NCCL INFO Connected all rings' },
      { rank: null, atNs: 330, text: other('AllReduce', 8, 'RING', 'LL') }, // the lab's own line
      { rank: 1, atNs: 135, text: other('AllReduce', 8, 'TREE', 'LL') }, // NCCL 2.27 prints on every rank
      { rank: 1, atNs: 90, text: other('AllReduce', 8, 'TREE', 'LL') }, // before rank 1 began any step
    ];
    const kernels = kernelsByStep(plan, logs, began);
    expect(kernels.get(0)).toEqual({ windows: true, symmetric: { AllReduce_AGxLL_R: 3 }, other: { 'TREE/LL': 1 } });
    expect(kernels.get(1)).toEqual({ windows: true, symmetric: { AllReduce_AGxLL_R: 1 }, other: { 'RING/LL': 1 } });
    expect(kernels.get(2)).toEqual({ windows: false, symmetric: {}, other: { 'RING/LL': 1 } });
    expect(kernels.size).toBe(3);
  });

  it("gives a line read several steps late to its step, not to none (stdout lags a rank's messages)", () => {
    const plan = compilePlan(scenario([{ op: 'sweep', collective: 'all_reduce', minBytes: 8, maxBytes: 64 }]));
    const began = new Map([0, 1, 2, 3].map((step) => [`0/${step}`, 100 * (step + 1)]));
    const logs = [
      { rank: 0, atNs: 110, text: other('AllReduce', 8, 'RING', 'LL') },
      // 16 B's line, read after rank 0 began the 64 B step.
      { rank: 0, atNs: 410, text: other('AllReduce', 16, 'RING', 'LL') },
      { rank: 0, atNs: 420, text: other('AllReduce', 32, 'RING', 'LL') },
      { rank: 0, atNs: 430, text: other('AllReduce', 64, 'RING', 'LL') },
      // Never back: 8 B again after 16 B went is no later 8 B step's either.
      { rank: 0, atNs: 440, text: other('AllReduce', 8, 'RING', 'LL') },
    ];
    const kernels = kernelsByStep(plan, logs, began);
    expect([0, 1, 2, 3].map((s) => kernels.get(s)?.other)).toEqual([
      { 'RING/LL': 1 },
      { 'RING/LL': 1 },
      { 'RING/LL': 1 },
      { 'RING/LL': 1 },
    ]);
  });

  it('gives a line read just before its step was said to begin to that step (a step run ahead), and never two steps on', () => {
    const plan = compilePlan(scenario([{ op: 'sweep', collective: 'all_reduce', minBytes: 8, maxBytes: 64 }]));
    const began = new Map([0, 1, 2, 3].map((step) => [`0/${step}`, 100 * (step + 1)]));
    const logs = [
      { rank: 0, atNs: 110, text: other('AllReduce', 8, 'RING', 'LL') },
      // 16 B's line, read before rank 0 said it began the 16 B step (at 200).
      { rank: 0, atNs: 190, text: other('AllReduce', 16, 'RING', 'LL') },
      // 64 B's, two steps on from the last begun (the 16 B step): no step's.
      { rank: 0, atNs: 250, text: other('AllReduce', 64, 'RING', 'LL') },
    ];
    const kernels = kernelsByStep(plan, logs, began);
    expect([0, 1, 2, 3].map((s) => kernels.get(s)?.other)).toEqual([{ 'RING/LL': 1 }, { 'RING/LL': 1 }, undefined, undefined]);
  });

  it('says what a step ran on: the symmetric kernel by name, why not where it knows, copy engines, counts where it varied', () => {
    const k = (symmetric: Record<string, number>, other: Record<string, number>, windows = true) => ({ windows, symmetric, other });
    expect(describeRan({ kernels: k({ AllReduce_RSxLD_AGxST: 46 }, {}) })).toBe('symmetric kernel AllReduce_RSxLD_AGxST');
    expect(describeRan({ kernels: k({}, { 'RING/LL': 46 }, false) })).toBe('not symmetric: RING/LL (no windows)');
    expect(describeRan({ kernels: k({}, { 'NVLS/SIMPLE': 46 }) })).toBe('not symmetric: NVLS/SIMPLE');
    expect(describeRan({ kernels: k({ AllReduce_AGxLL_R: 45 }, { 'RING/LL': 1 }) })).toBe(
      'symmetric kernel AllReduce_AGxLL_R ×45, RING/LL ×1',
    );
    expect(describeRan({ nccl: { seen: 26, copyEngine: 26 } })).toBe('copy engine');
    expect(describeRan({ nccl: { seen: 26, copyEngine: 20 }, kernels: k({}, { 'RING/SIMPLE': 6 }) })).toBe(
      'copy engine ×20, not symmetric: RING/SIMPLE',
    );
    expect(describeRan({ nccl: { seen: 26, copyEngine: 0 } })).toBeNull();
    // NCCL gave a rank no window: said beside its kernels, or alone where no INFO line was read.
    const declined = [{ windows: { declined: 0 } }, { windows: { declined: 2 } }];
    expect(describeRan({ kernels: k({}, { 'RING/LL': 46 }), ranks: declined })).toBe(
      'not symmetric: RING/LL (NCCL gave no window: its communicator has no symmetric memory support)',
    );
    expect(describeRan({ ranks: declined })).toBe('not symmetric: NCCL gave no window: its communicator has no symmetric memory support');
    expect(describeRan({ ranks: [{ windows: { declined: 0 } }] })).toBeNull();
    expect(describeRan({})).toBeNull();
  });

  it("says the kernels NCCL's profiler v7 named where no INFO line was read, and how many calls were symmetric", () => {
    expect(describeRan({ nccl: { seen: 46, kernel: { AllReduce_AGxLL_R: 46 }, symmetric: 46 } })).toBe(
      'symmetric kernel AllReduce_AGxLL_R',
    );
    expect(describeRan({ nccl: { seen: 46, kernel: { AllReduce_AGxLL_R: 40, AllReduce_Sum_f32_RING_LL: 6 }, symmetric: 40 } })).toBe(
      'kernels AllReduce_AGxLL_R ×40, AllReduce_Sum_f32_RING_LL ×6 (40 of 46 calls symmetric)',
    );
    expect(describeRan({ nccl: { seen: 6, kernel: { AllReduce_Sum_f32_RING_LL: 6 }, symmetric: 0 } })).toBe(
      'kernel AllReduce_Sum_f32_RING_LL',
    );
    // NCCL's INFO lines, where read, say it first.
    const lines = { windows: true, symmetric: { AllReduce_AGxLL_R: 46 }, other: {} };
    expect(describeRan({ kernels: lines, nccl: { seen: 46, kernel: { X: 46 }, symmetric: 46 } })).toBe(
      'symmetric kernel AllReduce_AGxLL_R',
    );
  });

  it("asks NCCL for each call's kernel only where steps are on windows or have a CTA policy, besides pairs' transports", () => {
    expect(ncclInfoSubsystems(compilePlan(scenario([{ op: 'all_reduce', count: 4 }])))).toEqual([]);
    expect(ncclInfoSubsystems(compilePlan(scenario([{ op: 'all_reduce', count: 4, registration: 'window' }])))).toEqual(['TUNING']);
    expect(
      ncclInfoSubsystems(
        compilePlan(
          scenario([
            { op: 'sweep', collective: 'all_gather', minBytes: 8, maxBytes: 8, ctaPolicy: 'efficiency' },
            { op: 'pairs', bytes: 8 },
          ]),
        ),
      ),
    ).toEqual(['P2P', 'SHM', 'NET', 'TUNING']);
  });
});
