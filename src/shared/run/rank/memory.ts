// What a plan needs in memory before any of it runs: per rank, the host bytes of its buffers
// (src/worker/buffers.ts) at the plan's busiest point, the device bytes the nccl backend stages
// (native/nccl/nccl_staging.cc, gpu_gemm.h), and the cpu backend's shared segment (native/cpu/shm_segment.cc).
// Lower bounds: the runtime, the libraries and NCCL's own buffers come on top.
import { DTYPE_INFO, type Dtype } from '../../data/dtypes.js';
import { COLLECTIVE_DESCRIPTORS } from '../../ops/index.js';
import type { BackendName } from './protocol.js';
import { rankAction } from '../../plan/per-rank.js';
import type { CollectiveAction, P2pAction, Plan, PlanStep } from '../../plan/types.js';

export interface RankMemory {
  rank: number;
  /** Buffers in the rank process's own memory. */
  hostBytes: number;
  /** Buffers on the rank's GPU (nccl; 0 on cpu). */
  deviceBytes: number;
  /** The label of the step at the host peak ('' when the rank has no buffers). */
  peakStep: string;
}

export interface MemoryNeed {
  backend: BackendName;
  ranks: RankMemory[];
  /** The cpu backend's one segment in /dev/shm for the whole world (0 on nccl). */
  sharedBytes: number;
}

/** The cpu backend's segment tuning (CLAB_CPU_SLOT_BYTES, CLAB_CPU_MAILBOX_BYTES), when set. */
export interface SegmentTuning {
  slotBytes?: number;
  mailboxBytes?: number;
}

interface CallBytes {
  bytes: number;
  consumesInput: boolean;
}

/** One collective call's host buffers on `rank`, aliased as buffers.ts aliases them. */
function collectiveBytes(a: CollectiveAction, rank: number, world: number): CallBytes {
  const desc = COLLECTIVE_DESCRIPTORS[a.op];
  const size = desc.buffers({ count: a.count, world, rank, root: a.root });
  const layout = a.inPlace ? (desc.inPlace?.layout ?? null) : null;
  let elements = size.send + size.recv;
  if (layout === 'same') elements = Math.max(size.send, size.recv);
  else if (layout === 'send-in-recv' && size.recv > 0) elements = size.recv;
  else if (layout === 'recv-in-send' && size.send > 0) elements = size.send;
  else if (a.read === 'rank-slice') elements = 2 * size.send; // the output buffer is as large as the input
  return { bytes: elements * DTYPE_INFO[a.dtype].bytes, consumesInput: layout === 'same' || layout === 'recv-in-send' };
}

function p2pBytes(a: P2pAction, rank: number): CallBytes {
  const takesPart = a.from === rank || a.to === rank;
  return { bytes: takesPart ? a.count * DTYPE_INFO[a.dtype].bytes : 0, consumesInput: false };
}

function stepCalls(step: PlanStep, rank: number, world: number): CallBytes[] {
  const a = rankAction(step, rank);
  switch (a?.kind) {
    case 'collective':
      return [collectiveBytes(a, rank, world)];
    case 'p2p':
      return [p2pBytes(a, rank)];
    case 'group':
      return a.items.map((i) => (i.kind === 'collective' ? collectiveBytes(i, rank, world) : p2pBytes(i, rank)));
    case 'pair': {
      if (a.from !== rank && a.to !== rank) return [];
      const one = a.count * DTYPE_INFO[a.dtype].bytes;
      // Both ways: a send and a receive buffer; a copy: its source here (its destination is on the peer's GPU).
      return [{ bytes: a.both ? 2 * one : one, consumesInput: false }];
    }
    default:
      return [];
  }
}

/** A step's buffers on `rank`: host (a second set for the check run when the op eats its input, as executor.ts makes) and device. */
function stepBytes(step: PlanStep, rank: number, world: number): { host: number; device: number; sets: number } {
  const calls = stepCalls(step, rank, world);
  const one = calls.reduce((s, c) => s + c.bytes, 0);
  const sets = calls.some((c) => c.consumesInput) && step.warmup + step.iters > 1 ? 2 : 1;
  return { host: one * sets, device: one, sets };
}

/** A GEMM's operands A (m×k), B (k×n), C (m×n); the cpu backend keeps float32 copies of half types. */
function gemmBytes(dtype: Dtype, m: number, n: number, k: number, backend: BackendName): { host: number; device: number } {
  const elements = m * k + k * n + m * n;
  const stored = elements * DTYPE_INFO[dtype].bytes;
  if (backend === 'nccl') return { host: 0, device: stored };
  const half = dtype === 'float16' || dtype === 'bfloat16';
  return { host: stored + (half ? elements * 4 : 0), device: 0 };
}

/**
 * One rank's peak. Buffers live while their step runs; an async step's until the wait that ends
 * it; a compare block's, all of them, from its start (the executor makes them ahead, and the nccl
 * backend stages every set on the GPU); a stream's GEMM workspace for the rest of the run.
 */
function rankMemory(plan: Plan, rank: number, backend: BackendName): RankMemory {
  const inFlight = new Map<number, { asyncId: string | null; host: number; device: number }>();
  const gemm = new Map<number, { host: number; device: number }>();
  let block: { host: number; device: number; label: string; marker: PlanStep['action'] } | null = null;
  let peak = { host: 0, device: 0, label: '' };
  const sum = (pick: 'host' | 'device') => [...inFlight.values(), ...gemm.values()].reduce((s, b) => s + b[pick], 0);
  const consider = (host: number, device: number, label: string) => {
    const now = { host: host + sum('host'), device: device + sum('device') };
    if (now.host > peak.host || (now.host === peak.host && now.device > peak.device)) peak = { ...now, label };
    else peak = { ...peak, device: Math.max(peak.device, now.device) };
  };

  for (const step of plan.steps) {
    const a = step.action;
    if (a.kind === 'block-begin' && !block) {
      block = { host: 0, device: 0, label: step.label, marker: a };
      continue;
    }
    if (
      a.kind === 'block-end' &&
      block?.marker.kind === 'block-begin' &&
      a.compare === block.marker.compare &&
      a.variant === block.marker.variant &&
      a.repeat === block.marker.repeat
    ) {
      consider(block.host, block.device, block.label);
      block = null;
      continue;
    }
    if (a.kind === 'wait') {
      for (const [index, f] of inFlight) if (a.id === null || f.asyncId === a.id) inFlight.delete(index);
      continue;
    }
    if (a.kind === 'compute') {
      if (a.ranks !== null && !a.ranks.includes(rank)) continue;
      const need = gemmBytes(a.dtype, a.m, a.n, a.k, backend);
      const held = gemm.get(step.stream);
      // The workspace is remade when the shape changes: the old one is freed first.
      if (!held || need.host + need.device > held.host + held.device) gemm.set(step.stream, need);
      consider(0, 0, step.label);
      continue;
    }
    const bytes = stepBytes(step, rank, plan.world);
    if (bytes.host === 0) continue;
    if (block) {
      block.host += bytes.host;
      block.device += bytes.device * bytes.sets;
      continue;
    }
    if (step.async) inFlight.set(step.index, { asyncId: step.asyncId, host: bytes.host, device: bytes.device });
    consider(step.async ? 0 : bytes.host, step.async ? 0 : bytes.device, step.label);
  }
  return { rank, hostBytes: peak.host, deviceBytes: backend === 'nccl' ? peak.device : 0, peakStep: peak.label };
}

const alignUp = (x: number, a: number) => Math.ceil(x / a) * a;
const PAGE = 4096;
/** sizeof(RankInfo) and sizeof(MboxCtl) in native/cpu/shm_segment.h (cache-line aligned members). */
const RANK_INFO_BYTES = 192;
const MAILBOX_CONTROL_BYTES = 128;

/** The cpu backend's defaults (native/cpu/cpu_comm.cc): 512 KiB slots and 1 MiB mailboxes, less for large worlds. */
export function cpuSegmentBytes(world: number, tuning: SegmentTuning = {}): number {
  let slot = 512 * 1024;
  while (slot > 64 * 1024 && slot * world > 8 * 1024 * 1024) slot /= 2;
  slot = tuning.slotBytes ?? Math.max(slot, 256, world * 64);
  let mailbox = 1024 * 1024;
  while (mailbox > 16 * 1024 && mailbox * world * world > 16 * 1024 * 1024) mailbox /= 2;
  mailbox = tuning.mailboxBytes ?? mailbox;
  const ranksOffset = PAGE; // the header fits in one page
  const collOffset = alignUp(ranksOffset + RANK_INFO_BYTES * world, PAGE);
  const mboxOffset = alignUp(collOffset + 2 * (world + 1) * slot, PAGE);
  return alignUp(mboxOffset + world * world * (MAILBOX_CONTROL_BYTES + mailbox), PAGE);
}

export function planMemoryNeed(plan: Plan, backend: BackendName, tuning: SegmentTuning = {}): MemoryNeed {
  return {
    backend,
    ranks: Array.from({ length: plan.world }, (_, rank) => rankMemory(plan, rank, backend)),
    sharedBytes: backend === 'cpu' ? cpuSegmentBytes(plan.world, tuning) : 0,
  };
}
