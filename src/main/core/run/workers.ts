// The core's view of a rank process: a link that carries validated messages and can be killed.
// Forked children here; workers started by a launcher on other hosts (hosts/listener.ts) give the
// core the same links, so nothing else assumes a child process.
import { fork, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import {
  parseMessage,
  workerToCoreSchema,
  type CoreToWorker,
  type StartEnv,
  type WorkerToCore,
} from '../../../shared/run/rank/protocol.js';
import { takeEarlyRanks } from './early-ranks.js';
import type { HostRecord } from '../../../shared/run/record/record.js';
import { removeCpuSegmentsOf } from '../../../addon/cpu-segments.js';
import { ncclSegmentsOf, removeNcclSegments } from '../../../addon/nccl-segments.js';
import { findAddon } from '../../../addon/addon.js';
import { earlyContextLibrary, withEarlyContext } from '../../../../bin/early-context.cjs';

export interface WorkerLink {
  readonly rank: number;
  readonly pid: number | undefined;
  send(message: CoreToWorker): void;
  kill(): void;
  readonly exited: boolean;
}

export interface WorkerHandlers {
  message(rank: number, message: WorkerToCore): void;
  output(rank: number, line: string): void;
  /** `lost`: the rank's link went (a remote rank): why, in words; code and signal are then unknown. */
  exit(rank: number, code: number | null, signal: NodeJS.Signals | null, lost?: string): void;
  invalid(rank: number, error: Error): void;
}

/**
 * How long a rank's `failed` waits for the output the rank wrote before sending it (NCCL's WARN
 * lines, which its message quotes): stdout and the IPC channel are separate pipes, and the core
 * reads them in no set order — the message usually came first. It waits less when stdout closes.
 */
export const FAILED_WAITS_FOR_OUTPUT_MS = 100;

/** libuv threads of a rank process (UV_THREADPOOL_SIZE, unless the environment sets it). */
export const RANK_THREAD_POOL = 32;

/** Where a run's ranks come from: forked here (forkedRanks), or joined from a launcher (hosts/listener.ts). */
export interface RankSource {
  /** Every rank's link, once all are there; rejects with why the world did not come together. */
  open(handlers: WorkerHandlers, context: { runId: string; env: NodeJS.ProcessEnv }): Promise<RankSet>;
  /** Gives up: no rank joins any more, links not yet handed out are closed. */
  close(reason: string): void;
}

export interface RankSet {
  links: WorkerLink[];
  /** Ranks on other hosts: each rank's device on its host, and what the record keeps of the hosts. */
  devices?: number[];
  hosts?: HostRecord[];
  /** Says where a rank runs, for failure messages ("rank 3 on host b"). */
  where?(rank: number): string;
}

/**
 * The ranks as children of this process, one per rank. `devices` (nccl): each rank's GPU, named
 * to it as CLAB_EARLY_DEVICE so it begins making its CUDA context before the plan comes
 * (worker/early-device.ts).
 */
export function forkedRanks(entry: string, world: number, devices?: readonly number[]): RankSource {
  // On nccl the rank's CUDA context begins before Node boots, from a library of ours it preloads
  // (bin/early-context.cjs), as bin/early-ranks.cjs gives it to the ranks it starts.
  const library = devices ? earlyContextLibrary(addonOrNull()) : null;
  const envOf = (env: NodeJS.ProcessEnv, rank: number) =>
    devices?.[rank] === undefined ? env : withEarlyContext({ ...env, CLAB_EARLY_DEVICE: String(devices[rank]) }, library);
  return {
    open: async (handlers, { env }) => {
      // Started by bin/clab.cjs while the core loaded, where they fit (early-ranks.ts).
      const early = takeEarlyRanks(entry, world, (rank) => rankEnv(envOf(env, rank), rank));
      return {
        links: Array.from({ length: world }, (_, rank) =>
          early ? linkWorker(early[rank].child, rank, handlers, early[rank].env) : forkWorker(entry, rank, handlers, envOf(env, rank)),
        ),
      };
    },
    close: () => undefined,
  };
}

/** Where the addon is, or null where it is not built (its ranks then say so themselves). */
function addonOrNull(): string | null {
  try {
    return findAddon();
  } catch {
    return null;
  }
}

/**
 * A rank's environment: NVLink multicast stays off in every environment we build for a rank. The
 * addon's waits run on libuv's thread pool (4 threads by default): a pair's NCCL init that never
 * returns keeps one for good (it cannot be aborted), so a matrix over broken links needs more than 4
 * to go on. bin/early-ranks.cjs builds the same.
 */
export const rankEnv = (env: NodeJS.ProcessEnv, rank: number): NodeJS.ProcessEnv => ({
  UV_THREADPOOL_SIZE: String(RANK_THREAD_POOL),
  ...env,
  NCCL_NVLS_ENABLE: '0',
  CLAB_RANK: String(rank),
});

export function forkWorker(entry: string, rank: number, handlers: WorkerHandlers, env: NodeJS.ProcessEnv): WorkerLink {
  return linkWorker(fork(entry, [], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: rankEnv(env, rank) }), rank, handlers);
}

/** The link to a rank process; `startEnv`: what its `start` sets in its environment first (an early rank's). */
function linkWorker(child: ChildProcess, rank: number, handlers: WorkerHandlers, startEnv?: StartEnv): WorkerLink {
  let exited = false;
  /** NCCL segments a killed rank mapped (kill()), removed once it has gone. */
  let ncclSegments: string[] = [];
  // From a `failed` on, messages wait (in order) until stdout closes or the wait is over.
  let held: WorkerToCore[] | null = null;
  let holdTimer: NodeJS.Timeout | undefined;
  const release = () => {
    clearTimeout(holdTimer);
    const messages = held ?? [];
    held = null;
    for (const m of messages) handlers.message(rank, m);
  };
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    const lines = createInterface({ input: stream }).on('line', (line) => handlers.output(rank, line));
    if (stream === child.stdout) lines.on('close', release);
  }
  child.on('message', (raw) => {
    let message: WorkerToCore;
    try {
      message = parseMessage(workerToCoreSchema, raw, `rank ${rank}`);
    } catch (e) {
      return handlers.invalid(rank, e as Error);
    }
    if (held) return void held.push(message);
    if (message.type !== 'failed' || child.stdout?.readableEnded) return handlers.message(rank, message);
    held = [message];
    holdTimer = setTimeout(release, FAILED_WAITS_FOR_OUTPUT_MS);
  });
  child.on('exit', () => {
    exited = true;
    // A rank that ends by itself removes the cpu segments not every rank attached to yet
    // (worker/segments.ts); one killed outright (SIGKILL) cannot, and may have made one whose
    // name it told no one. The names carry its pid: whatever of it is still there goes now.
    if (child.pid) removeCpuSegmentsOf(child.pid);
    removeNcclSegments(ncclSegments);
  });
  // Reported once every pipe has closed, the IPC channel included: every message and log line the
  // rank sent has been handled by then, so a rank that said `done` and exited is never taken for
  // one that died, whichever arrived first.
  child.on('close', (code, signal) => {
    release();
    handlers.exit(rank, code, signal);
  });
  child.on('error', (e) => handlers.invalid(rank, e));
  return {
    rank,
    get pid() {
      return child.pid;
    },
    get exited() {
      return exited;
    },
    send(message) {
      // A rank that has just exited or disconnected cannot be told anything (EPIPE): its close
      // says what became of it, so the failed write is not an error of its own.
      const sent =
        message.type === 'start' && startEnv && (startEnv.unset.length || Object.keys(startEnv.set).length)
          ? { ...message, env: startEnv }
          : message;
      if (child.connected) child.send(sent, () => undefined);
    },
    kill() {
      if (exited) return;
      // NCCL's segments this rank maps, whose names it will not remove (addon/nccl-segments.ts): gone once it is.
      if (child.pid) ncclSegments = ncclSegmentsOf(child.pid);
      child.kill('SIGKILL');
    },
  };
}
