import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkPlanMemory,
  gpusFromTopology,
  InsufficientMemoryError,
  memoryShortfall,
  readMemAvailable,
  readShmFree,
  segmentTuningFromEnv,
  type MachineMemory,
} from '../../../../src/main/core/machine/memory-check';
import { planMemoryNeed } from '../../../../src/shared/run/rank/memory';
import type { Plan, PlanStep } from '../../../../src/shared/plan/types';
import { tempDir } from '../../../setup/temp-dirs';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** One all_reduce of `bytes` per rank (float32, out of place: twice that in buffers). */
function allReducePlan(world: number, bytes: number, devices: number[] | null = null): Plan {
  const step: PlanStep = {
    index: 0,
    path: 'steps[0]',
    label: 'all_reduce 4 GiB',
    origin: { kind: 'step' },
    action: {
      kind: 'collective',
      op: 'all_reduce',
      dtype: 'float32',
      redop: 'sum',
      root: 0,
      count: bytes / 4,
      inPlace: false,
      data: { kind: 'arange_rank', start: 1 },
    },
    warmup: 0,
    iters: 1,
    timeoutMs: 60_000,
    async: false,
    asyncId: null,
    stream: 0,
  };
  return { world, devices, streams: ['default'], steps: [step], sweeps: [], pairs: [], compares: [] };
}

const plenty: MachineMemory = { hostAvailableBytes: 512 * GiB, shmFreeBytes: 64 * GiB, gpus: null };

describe('memory check before a run', () => {
  it('refuses a cpu run that needs more than MemAvailable, with the numbers', () => {
    const plan = allReducePlan(2, 4 * GiB);
    const machine = { ...plenty, hostAvailableBytes: 4.3 * GiB };
    const message = memoryShortfall(planMemoryNeed(plan, 'cpu'), machine, null);
    expect(message).toBe(
      'the scenario does not fit in memory: needs 8 GiB per rank at "all_reduce 4 GiB" (2 ranks: 16.1 GiB, with 70 MiB for each rank process itself and the 7.0 MiB shared segment); this host has 4.3 GiB available',
    );
    expect(() => checkPlanMemory(plan, 'cpu', { machine })).toThrow(InsufficientMemoryError);
  });

  it("counts each rank process's own memory beside its buffers", () => {
    // 64 ranks of 4 MiB buffers: 512 MiB of buffers, but 64 Node processes of ~70 MiB besides.
    const plan = allReducePlan(64, 4 * MiB);
    const need = planMemoryNeed(plan, 'cpu');
    const buffers = need.ranks.reduce((s, r) => s + r.hostBytes, 0) + need.sharedBytes;
    const message = memoryShortfall(need, { ...plenty, hostAvailableBytes: buffers + 1 * GiB }, null);
    expect(message).toMatch(
      /\(64 ranks: 5\.0 GiB, with 70 MiB for each rank process itself and the .* shared segment\); this host has .* available$/,
    );
    expect(memoryShortfall(need, { ...plenty, hostAvailableBytes: buffers + 5 * GiB }, null)).toBeNull();
  });

  it('lets a run through when it fits, and returns what it needs', () => {
    const need = checkPlanMemory(allReducePlan(2, 4 * GiB), 'cpu', { machine: plenty });
    expect(need.ranks.map((r) => r.hostBytes)).toEqual([8 * GiB, 8 * GiB]);
  });

  it("refuses when /dev/shm cannot hold the cpu backend's segment", () => {
    const machine = { ...plenty, shmFreeBytes: 10 * MiB };
    expect(memoryShortfall(planMemoryNeed(allReducePlan(4, MiB), 'cpu'), machine, null)).toBe(
      "the scenario does not fit in memory: the cpu backend's shared segment for 4 ranks needs 21.0 MiB in /dev/shm; 10 MiB is free there",
    );
  });

  it('names the rank whose GPU is too small, free memory when known and total otherwise', () => {
    const plan = allReducePlan(2, 4 * GiB, [3, 1]);
    const need = planMemoryNeed(plan, 'nccl');
    const gpus = [
      { index: 1, freeBytes: 80 * GiB, totalBytes: 80 * GiB },
      { index: 3, freeBytes: 4.3 * GiB, totalBytes: 80 * GiB },
    ];
    expect(memoryShortfall(need, { ...plenty, gpus }, plan.devices)).toBe(
      'the scenario does not fit in memory: rank 0 needs 8 GiB on its GPU at "all_reduce 4 GiB"; rank 0\'s GPU (3) has 4.3 GiB free',
    );
    const small = gpusFromTopology({ gpus: [0, 1, 2, 3].map((index) => ({ index, name: 'GPU', memoryBytes: 6 * GiB, busId: '' })) });
    expect(memoryShortfall(need, { ...plenty, gpus: small }, plan.devices)).toMatch(
      /rank 0 needs 8 GiB on its GPU .*; rank 0's GPU \(3\) has 6 GiB in all; rank 1 needs 8 GiB on its GPU .*; rank 1's GPU \(1\) has 6 GiB in all$/,
    );
    // nccl's host buffers count against the host too, and no /dev/shm segment.
    expect(need.sharedBytes).toBe(0);
    expect(memoryShortfall(need, { hostAvailableBytes: 10 * GiB, shmFreeBytes: 0, gpus: null }, null)).toMatch(
      /2 ranks: 16.1 GiB, with 70 MiB for each rank process itself\); this host has 10 GiB available$/,
    );
  });

  it('checks nothing it could not read', () => {
    const unknown: MachineMemory = { hostAvailableBytes: null, shmFreeBytes: null, gpus: null };
    expect(memoryShortfall(planMemoryNeed(allReducePlan(8, 64 * GiB), 'nccl'), unknown, null)).toBeNull();
  });

  it('reads MemAvailable and the free space of /dev/shm from this host', () => {
    const dir = tempDir('meminfo');
    writeFileSync(join(dir, 'meminfo'), 'MemTotal:       16318504 kB\nMemFree:         1234 kB\nMemAvailable:    4508876 kB\n');
    expect(readMemAvailable(join(dir, 'meminfo'))).toBe(4508876 * 1024);
    expect(readMemAvailable(join(dir, 'missing'))).toBeNull();
    expect(readMemAvailable()).toBeGreaterThan(0);
    expect(readShmFree()).toBeGreaterThan(0);
    expect(readShmFree(join(dir, 'missing'))).toBeNull();
  });

  it('sizes the segment with the tuning the native backend reads from the environment', () => {
    expect(segmentTuningFromEnv({ CLAB_CPU_SLOT_BYTES: '65536', CLAB_CPU_MAILBOX_BYTES: 'lots' })).toEqual({
      slotBytes: 65536,
      mailboxBytes: undefined,
    });
  });
});
