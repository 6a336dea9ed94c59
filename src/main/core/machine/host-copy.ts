// How fast this host copies memory: the β of the α-β model for runs on the cpu backend, whose
// ranks move every byte as copies through shared memory (the record's environment.hostCopyGBps).
// Measured once per process: the copy costs ~0.1 s, and the rate it finds does not change
// between runs.

/** Larger than the caches, so the copy runs at memory speed, not at a cache's. */
const COPY_BYTES = 64 << 20;
/** The first copy pays for mapping its destination's pages; the best of the others is the rate. */
const COPIES = 3;

let measured: number | null = null;

/** GB/s (10⁹ B/s) of one memory-to-memory copy, the best of a few. */
export function hostCopyGBps(): number {
  if (measured === null) {
    // Filled, so the source is real memory: never-written pages all map one zero page, which stays in cache.
    const source = Buffer.allocUnsafeSlow(COPY_BYTES).fill(1);
    const target = Buffer.allocUnsafeSlow(COPY_BYTES);
    let bestNs = Infinity;
    for (let i = 0; i < COPIES; i++) {
      const start = process.hrtime.bigint();
      source.copy(target);
      bestNs = Math.min(bestNs, Number(process.hrtime.bigint() - start));
    }
    measured = COPY_BYTES / bestNs;
  }
  return measured;
}

/** A rate this host measured earlier (kept across processes: library/host-copy-kept.ts) stands for the copy in this process. */
export function knownHostCopyGBps(gbps: number): void {
  measured ??= gbps;
}
