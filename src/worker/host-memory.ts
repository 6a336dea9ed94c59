// When a rank gives its large host buffers back to the system. V8 frees an ArrayBuffer's memory
// whenever its garbage collector gets round to it, on a thread of its own: while another step's
// timed loop is being issued, as likely as not. Unmapping a large buffer the host has written (the
// host making and checking data) held the thread issuing a loop for tens of ms (2026-11-25, one
// H100: a 20-iteration all_gather of 26 µs each took 58 ms as one loop; loop-host.ts tells such
// loops). So the executor collects at step boundaries, before making a step's buffers, once enough
// written host memory has been let go, with the collector sweeping ArrayBuffers in that pause.
import v8 from 'node:v8';
import vm from 'node:vm';
import type { PreparedCall } from './buffers.js';

/** Written host memory let go that makes a step boundary collect. */
export const COLLECT_AFTER_BYTES = 64 * 2 ** 20;

type Collect = () => void;

let collector: Collect | null | undefined;

/**
 * V8's collector, exposed for this process, with ArrayBuffers swept during the pause rather than
 * on a thread of its own afterwards; null where the engine refuses (the executor then leaves
 * collecting to V8, as before).
 */
export function hostCollector(): Collect | null {
  if (collector !== undefined) return collector;
  try {
    v8.setFlagsFromString('--no-concurrent-array-buffer-sweeping');
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as unknown;
    v8.setFlagsFromString('--no-expose-gc');
    collector = typeof gc === 'function' ? () => (gc as () => void)() : null;
  } catch {
    collector = null;
  }
  return collector;
}

/** Counts the host memory steps write and collects at the boundary after enough was written. */
export class HostMemory {
  private written = 0;
  /** Collections so far and their total time (the rank's log says so at the end). */
  collections = 0;
  collectMs = 0;

  constructor(
    private readonly collect: Collect | null = hostCollector(),
    private readonly threshold = COLLECT_AFTER_BYTES,
  ) {}

  /** A step made `bytes` of host memory that it writes (filled or checked by the host). */
  wrote(bytes: number): void {
    this.written += bytes;
  }

  /** Would the next boundary collect? */
  due(): boolean {
    return this.collect !== null && this.written >= this.threshold;
  }

  /**
   * At a step boundary: collects if the steps before wrote at least the threshold (their buffers
   * are garbage by now, or still in use by a step in flight and kept). Returns whether it did.
   */
  boundary(): boolean {
    if (!this.due()) return false;
    this.written = 0;
    const t0 = performance.now();
    this.collect!();
    this.collectMs += performance.now() - t0;
    this.collections++;
    return true;
  }
}

/**
 * Host memory that calls write: their buffers where the host makes and checks the data (where the
 * backend does, the host buffers only stand for the device's and their pages are never touched).
 */
export function hostWrittenBytes(calls: PreparedCall[]): number {
  const seen = new Set<ArrayBufferLike>();
  for (const c of calls) {
    // The op's own data says the backend makes it (a send's too, whose call has no output to check).
    const op = c.op as { send?: Uint8Array; recv?: Uint8Array; data?: unknown };
    if (op.data) continue;
    for (const b of [op.send, op.recv]) if (b && b.byteLength) seen.add(b.buffer);
  }
  let bytes = 0;
  for (const b of seen) bytes += b.byteLength;
  return bytes;
}
