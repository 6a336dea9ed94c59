// Refuses a run whose buffers cannot fit before anything is forked: the plan's need
// (shared/run/rank/memory.ts) against what this host has (MemAvailable, free space in /dev/shm) and,
// for nccl, what each rank's GPU has (free memory when known, else its total).
import { readFileSync, statfsSync } from 'node:fs';
import { planMemoryNeed, type MemoryNeed, type SegmentTuning } from '../../../shared/run/rank/memory.js';
import type { Plan } from '../../../shared/plan/types.js';
import type { BackendName } from '../../../shared/run/rank/protocol.js';
import { formatBytes } from '../../../shared/data/units.js';
import type { Topology } from '../../../addon/native-api.js';

export interface GpuMemory {
  /** CUDA's device index. */
  index: number;
  /** Free bytes, when the driver could say; else null and `totalBytes` is compared. */
  freeBytes: number | null;
  totalBytes: number;
}

/** What the machine offers; null where it could not be read (that figure is not checked). */
export interface MachineMemory {
  hostAvailableBytes: number | null;
  shmFreeBytes: number | null;
  gpus: GpuMemory[] | null;
}

export class InsufficientMemoryError extends Error {
  readonly code = 'CLAB_INSUFFICIENT_MEMORY';
}

/** MemAvailable from /proc/meminfo (the kernel's estimate of what can be had without swapping). */
export function readMemAvailable(meminfo = '/proc/meminfo'): number | null {
  try {
    const kib = /^MemAvailable:\s+(\d+)\s+kB$/m.exec(readFileSync(meminfo, 'utf8'))?.[1];
    return kib === undefined ? null : Number(kib) * 1024;
  } catch {
    return null;
  }
}

/** Space an unprivileged process may still use in /dev/shm (where the cpu backend's segment lives). */
export function readShmFree(dir = '/dev/shm'): number | null {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

/** The GPUs as the addon's topology() lists them: total memory only (NVML's free figure is not carried). */
export function gpusFromTopology(topology: Pick<Topology, 'gpus'>): GpuMemory[] {
  return topology.gpus.map((g) => ({ index: g.index, freeBytes: null, totalBytes: g.memoryBytes }));
}

/** CLAB_CPU_SLOT_BYTES / CLAB_CPU_MAILBOX_BYTES as the native backend reads them; a malformed one is the backend's to refuse. */
export function segmentTuningFromEnv(env: NodeJS.ProcessEnv = process.env): SegmentTuning {
  const read = (v: string | undefined) => (v && /^\d+$/.test(v) ? Number(v) : undefined);
  return { slotBytes: read(env.CLAB_CPU_SLOT_BYTES), mailboxBytes: read(env.CLAB_CPU_MAILBOX_BYTES) };
}

const ranks = (n: number) => `${n} rank${n === 1 ? '' : 's'}`;

/**
 * What a rank process takes itself, beside its buffers: Node, V8's heap, the addon and the
 * bundled worker (about 70 MB resident, measured on the cpu backend), counted once per rank.
 */
export const RANK_PROCESS_BYTES = 70 * 1024 * 1024;

/** Why `need` does not fit on `machine`, with the numbers; null when it fits (or nothing could be read). */
export function memoryShortfall(need: MemoryNeed, machine: MachineMemory, devices: number[] | null): string | null {
  const world = need.ranks.length;
  const peak = need.ranks.reduce((a, b) => (b.hostBytes > a.hostBytes ? b : a), need.ranks[0]);
  const hostTotal = need.ranks.reduce((s, r) => s + r.hostBytes + RANK_PROCESS_BYTES, 0) + need.sharedBytes;
  const at = peak.peakStep ? ` at "${peak.peakStep}"` : '';
  const problems: string[] = [];
  if (machine.hostAvailableBytes !== null && hostTotal > machine.hostAvailableBytes) {
    const shared = `, with ${formatBytes(RANK_PROCESS_BYTES)} for each rank process itself${need.sharedBytes ? ` and the ${formatBytes(need.sharedBytes)} shared segment` : ''}`;
    problems.push(
      `needs ${formatBytes(peak.hostBytes)} per rank${at} (${ranks(world)}: ${formatBytes(hostTotal)}${shared}); this host has ${formatBytes(machine.hostAvailableBytes)} available`,
    );
  }
  if (machine.shmFreeBytes !== null && need.sharedBytes > machine.shmFreeBytes) {
    problems.push(
      `the cpu backend's shared segment for ${ranks(world)} needs ${formatBytes(need.sharedBytes)} in /dev/shm; ${formatBytes(machine.shmFreeBytes)} is free there`,
    );
  }
  if (need.backend === 'nccl' && machine.gpus) {
    for (const r of need.ranks) {
      const device = devices?.[r.rank] ?? r.rank;
      const gpu = machine.gpus.find((g) => g.index === device);
      if (!gpu) continue; // a missing GPU is backend.ts's refusal
      const room = gpu.freeBytes ?? gpu.totalBytes;
      if (r.deviceBytes > room) {
        const where = r.peakStep ? ` at "${r.peakStep}"` : '';
        problems.push(
          `rank ${r.rank} needs ${formatBytes(r.deviceBytes)} on its GPU${where}; rank ${r.rank}'s GPU (${device}) has ${formatBytes(room)} ${gpu.freeBytes === null ? 'in all' : 'free'}`,
        );
      }
    }
  }
  return problems.length ? `the scenario does not fit in memory: ${problems.join('; ')}` : null;
}

export interface MemoryCheckOptions {
  /** The machine's figures; read from this host (and the GPUs given) when absent. */
  machine?: MachineMemory;
  /** nccl: the GPUs' memory (NVML's totals, or gpusFromTopology of the addon's topology). */
  gpus?: GpuMemory[];
  tuning?: SegmentTuning;
}

export function readMachineMemory(backend: BackendName, gpus?: GpuMemory[]): MachineMemory {
  return {
    hostAvailableBytes: readMemAvailable(),
    shmFreeBytes: backend === 'cpu' ? readShmFree() : null,
    gpus: backend === 'nccl' ? (gpus ?? null) : null,
  };
}

/** Throws InsufficientMemoryError, with the numbers, when the plan cannot fit on this machine on `backend`. */
export function checkPlanMemory(plan: Plan, backend: BackendName, options: MemoryCheckOptions = {}): MemoryNeed {
  const need = planMemoryNeed(plan, backend, options.tuning ?? segmentTuningFromEnv());
  const machine = options.machine ?? readMachineMemory(backend, options.gpus);
  const shortfall = memoryShortfall(need, machine, plan.devices);
  if (shortfall) throw new InsufficientMemoryError(shortfall);
  return need;
}
