// The cell beside a pair's figure: the transport read from NCCL's INFO lines, and a failed pair's
// WARN lines and hints, each from the lines printed while that pair ran.
import { describe, expect, it } from 'vitest';
import { nicsIn, pairCells, transportsIn } from '../../../../src/main/core/run/pair-cells';
import { compilePlan } from '../../../../src/shared/plan/compile';
import type { LogLine, StepRecord } from '../../../../src/shared/run/record/record';
import { scenarioSchema } from '../../../../src/shared/scenario/schema';

// As NCCL 2.28 prints them (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=P2P,SHM,NET).
const P2P = 'gpu-box:4242:4250 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] via P2P/CUMEM/read';
const P2P2 = 'gpu-box:4242:4250 [0] NCCL INFO Channel 01/1 : 0[0] -> 1[1] via P2P/CUMEM/read';
const SHM = 'gpu-box:4243:4251 [1] NCCL INFO Channel 00 : 1[1] -> 0[0] via SHM/direct/direct';
const NET = 'gpu-box:4243:4251 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [send] via NET/IB/0/GDRDMA';
const WARN = "gpu-box:4243:4251 [1] NCCL WARN Cuda failure 217 'peer access is not supported between these two devices'";

describe('transportsIn', () => {
  it('reads each transport once, in the order NCCL connected them', () => {
    expect(transportsIn([P2P, P2P2])).toBe('P2P/CUMEM/read');
    expect(transportsIn([SHM, P2P, NET])).toBe('SHM/direct/direct, P2P/CUMEM/read, NET/IB/0/GDRDMA');
    expect(transportsIn(['gpu-box:1:2 [0] NCCL INFO Using network Socket', WARN])).toBeNull();
  });
});

describe('pairs across hosts: NET transports with their NIC', () => {
  const SOCKET = 'node0:4242:4250 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/1';
  const USING_SOCKET = 'node0:4242:4242 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0> [1]eth1:10.1.0.1<0>';
  const USING_IB = 'node0:4242:4242 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>';

  it('reads the NICs each network transport uses, by index', () => {
    const nics = nicsIn([USING_SOCKET, USING_IB]);
    expect(nics.get('Socket')).toEqual(
      new Map([
        [0, 'eth0:10.0.0.1<0>'],
        [1, 'eth1:10.1.0.1<0>'],
      ]),
    );
    expect(nics.get('IB')).toEqual(
      new Map([
        [0, 'mlx5_0:1/IB'],
        [1, 'mlx5_1:1/RoCE'],
      ]),
    );
  });

  it('names the NIC beside NET/Socket/n and NET/IB/n, beside P2P pairs inside a host', () => {
    expect(transportsIn([USING_SOCKET, SOCKET])).toBe('NET/Socket/1 (eth1:10.1.0.1<0>)');
    expect(transportsIn([USING_IB, NET, P2P])).toBe('NET/IB/0/GDRDMA (mlx5_0:1/IB), P2P/CUMEM/read');
  });
});

describe('pairCells', () => {
  const scenario = scenarioSchema.parse({
    version: 1,
    name: 'p',
    world: { ranks: 2 },
    steps: [{ op: 'pairs', bytes: 64, latency: false, copy: false }],
  });
  const plan = compilePlan(scenario);
  const step = (index: number, error?: { rank: number; code: string }): StepRecord => ({
    index,
    path: 'steps[0]',
    label: plan.steps[index].label,
    origin: plan.steps[index].origin,
    action: plan.steps[index].action,
    verdict: error ? 'error' : 'pass',
    wrong: 0,
    timing: null,
    bytes: 64,
    algbw: null,
    busbw: null,
    flops: null,
    ranks: [0, 1].map((rank) => ({
      step: index,
      rank,
      verdict: error?.rank === rank ? ('error' as const) : ('pass' as const),
      checked: 16,
      wrong: 0,
      mismatches: [],
      output: null,
      timesUs: [],
      note: null,
      ...(error?.rank === rank ? { error: { code: error.code, message: 'ncclGroupEnd failed: NCCL_ERROR_UNHANDLED_CUDA_ERROR' } } : {}),
    })),
  });
  const line = (rank: number, atNs: number, text: string): LogLine => ({ rank, atNs, text });

  it("gives each pair the lines printed between its gate and the next pair's", () => {
    const logs = [line(0, 5, P2P), line(1, 15, SHM), line(1, 16, WARN)];
    const windows = new Map([
      [0, { startNs: 0, endNs: 10 }],
      [1, { startNs: 10, endNs: 20 }],
    ]);
    const cells = pairCells(plan, [step(0), step(1, { rank: 1, code: 'NCCL_ERROR_UNHANDLED_CUDA_ERROR' })], logs, windows, 'nccl');
    expect(cells.get(0)).toEqual({ transport: 'P2P/CUMEM/read', how: null, error: null });
    const failed = cells.get(1)!;
    expect(failed.transport).toBe('SHM/direct/direct');
    expect(failed.error).toMatchObject({ rank: 1, code: 'NCCL_ERROR_UNHANDLED_CUDA_ERROR', warnings: [WARN], injected: false });
    expect(failed.error!.hints.length).toBeGreaterThan(0);
  });

  it("finds a pair's NIC in the line its rank printed at its first communicator, before the pair's window", () => {
    const using = 'node0:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>';
    const via = 'node0:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0';
    const cells = pairCells(plan, [step(0)], [line(0, 1, using), line(0, 5, via)], new Map([[0, { startNs: 4, endNs: 10 }]]), 'nccl');
    expect(cells.get(0)!.transport).toBe('NET/Socket/0 (eth0:10.0.0.1<0>)');
  });

  it("names an injected fault as the pair's cause, before the other rank's error that follows from it", () => {
    const faulted = compilePlan(
      scenarioSchema.parse({
        version: 1,
        name: 'p',
        world: { ranks: 2 },
        steps: [{ op: 'pairs', bytes: 64, latency: false, copy: false, faults: [{ from: 0, to: 1, kind: 'error' }] }],
      }),
    );
    const index = faulted.steps.findIndex((s) => s.action.kind === 'pair' && s.action.fault !== null);
    const record = step(index);
    // As a CI run once had it: rank 0 found the pair's communicator gone, rank 1 failed by the fault.
    const errors: Record<number, { code: string; message: string }> = {
      0: {
        code: 'CLAB_INVALID_ARGUMENT',
        message: 'no cpu communicator named /clab-1-ab (never created, removed, or all of its ranks already attached)',
      },
      1: { code: 'CLAB_INJECTED_ERROR', message: 'injected fault: the pair 0→1 fails as over a broken link' },
    };
    const ranks = record.ranks.map((r) => ({ ...r, verdict: 'error' as const, error: errors[r.rank] }));
    const cells = pairCells(faulted, [{ ...record, verdict: 'error', ranks }], [], new Map([[index, { startNs: 0, endNs: 1 }]]), 'cpu');
    expect(cells.get(index)!.error).toMatchObject({ rank: 1, code: 'CLAB_INJECTED_ERROR', injected: true });
  });

  it("says the cpu backend's transport without reading any line", () => {
    const cells = pairCells(plan, [step(0)], [], new Map([[0, { startNs: 0, endNs: 1 }]]), 'cpu');
    expect(cells.get(0)!.transport).toBe('shared memory (cpu backend)');
  });
});
