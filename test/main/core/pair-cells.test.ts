// The cell beside a pair's figure: the transport read from NCCL's INFO lines, and a failed pair's
// WARN lines and hints, each from the lines printed while that pair ran.
import { describe, expect, it } from 'vitest';
import { pairCells, transportsIn } from '../../../src/main/core/pair-cells';
import { compilePlan } from '../../../src/shared/plan/compile';
import type { LogLine, StepRecord } from '../../../src/shared/run/record';
import { scenarioSchema } from '../../../src/shared/scenario/schema';

// As NCCL 2.28 prints them (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=P2P,SHM,NET).
const P2P = 'gpu-box:4242:4250 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] via P2P/CUMEM/read';
const P2P2 = 'gpu-box:4242:4250 [0] NCCL INFO Channel 01/1 : 0[0] -> 1[1] via P2P/CUMEM/read';
const SHM = 'gpu-box:4243:4251 [1] NCCL INFO Channel 00 : 1[1] -> 0[0] via SHM/direct/direct';
const NET = 'gpu-box:4243:4251 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [send] via NET/IB/0/GDRDMA';
const WARN = 'gpu-box:4243:4251 [1] NCCL WARN Cuda failure 217 \'peer access is not supported between these two devices\'';

describe('transportsIn', () => {
  it('reads each transport once, in the order NCCL connected them', () => {
    expect(transportsIn([P2P, P2P2])).toBe('P2P/CUMEM/read');
    expect(transportsIn([SHM, P2P, NET])).toBe('SHM/direct/direct, P2P/CUMEM/read, NET/IB/0/GDRDMA');
    expect(transportsIn(['gpu-box:1:2 [0] NCCL INFO Using network Socket', WARN])).toBeNull();
  });
});

describe('pairCells', () => {
  const scenario = scenarioSchema.parse({ version: 1, name: 'p', world: { ranks: 2 }, steps: [{ op: 'pairs', bytes: 64, latency: false, copy: false }] });
  const plan = compilePlan(scenario);
  const step = (index: number, error?: { rank: number; code: string }): StepRecord => ({
    index, path: 'steps[0]', label: plan.steps[index].label, origin: plan.steps[index].origin, action: plan.steps[index].action,
    verdict: error ? 'error' : 'pass', wrong: 0, timing: null, bytes: 64, algbw: null, busbw: null, flops: null,
    ranks: [0, 1].map((rank) => ({
      step: index, rank, verdict: error?.rank === rank ? 'error' as const : 'pass' as const, checked: 16, wrong: 0, mismatches: [], output: null, timesUs: [], note: null,
      ...(error?.rank === rank ? { error: { code: error.code, message: 'ncclGroupEnd failed: NCCL_ERROR_UNHANDLED_CUDA_ERROR' } } : {}),
    })),
  });
  const line = (rank: number, atNs: number, text: string): LogLine => ({ rank, atNs, text });

  it('gives each pair the lines printed between its gate and the next pair\'s', () => {
    const logs = [line(0, 5, P2P), line(1, 15, SHM), line(1, 16, WARN)];
    const windows = new Map([[0, { startNs: 0, endNs: 10 }], [1, { startNs: 10, endNs: 20 }]]);
    const cells = pairCells(plan, [step(0), step(1, { rank: 1, code: 'NCCL_ERROR_UNHANDLED_CUDA_ERROR' })], logs, windows, 'nccl');
    expect(cells.get(0)).toEqual({ transport: 'P2P/CUMEM/read', how: null, error: null });
    const failed = cells.get(1)!;
    expect(failed.transport).toBe('SHM/direct/direct');
    expect(failed.error).toMatchObject({ rank: 1, code: 'NCCL_ERROR_UNHANDLED_CUDA_ERROR', warnings: [WARN], injected: false });
    expect(failed.error!.hints.length).toBeGreaterThan(0);
  });

  it('says the cpu backend\'s transport without reading any line', () => {
    const cells = pairCells(plan, [step(0)], [], new Map([[0, { startNs: 0, endNs: 1 }]]), 'cpu');
    expect(cells.get(0)!.transport).toBe('shared memory (cpu backend)');
  });
});
