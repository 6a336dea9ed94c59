// Timing statistics and bandwidth, computed the way nccl-tests does (GB/s = 1e9 B/s).

export interface TimingStats {
  /** Microseconds. */
  min: number;
  median: number;
  max: number;
  p99: number;
  mean: number;
  samples: number;
  /** nccl-tests' time per op: the timed loop's span over the iterations, averaged over ranks (see record.ts). */
  perOp?: number;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 1) return sorted[0];
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export function timingStats(microseconds: number[]): TimingStats | null {
  if (microseconds.length === 0) return null;
  const sorted = [...microseconds].sort((a, b) => a - b);
  return {
    min: sorted[0],
    median: quantile(sorted, 0.5),
    max: sorted[sorted.length - 1],
    p99: quantile(sorted, 0.99),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    samples: sorted.length,
  };
}

/**
 * Per-iteration time across ranks: the mean over ranks of each iteration's duration, as
 * nccl-tests averages its per-rank times.
 */
export function iterationTimesAcrossRanks(perRank: number[][]): number[] {
  const ranks = perRank.filter((t) => t.length > 0);
  if (ranks.length === 0) return [];
  const iters = Math.min(...ranks.map((t) => t.length));
  return Array.from({ length: iters }, (_, i) => ranks.reduce((s, t) => s + t[i], 0) / ranks.length);
}

/** nccl-tests' time per op (see TimingStats.perOp) from each rank's span of its timed iterations. */
export function perOpTime(spansUs: (number | null | undefined)[], iterations: number): number | undefined {
  const spans = spansUs.filter((s): s is number => typeof s === 'number' && s > 0);
  if (!spans.length || spans.length !== spansUs.length || iterations <= 0) return undefined;
  return spans.reduce((a, b) => a + b, 0) / spans.length / iterations;
}

/** The time that bandwidth comes from: nccl-tests' time per op where known, else the mean iteration. */
export const bandwidthTime = (t: TimingStats): number => t.perOp ?? t.mean;

/** Algorithm bandwidth in GB/s for `bytes` moved in `microseconds`. */
export const algBandwidth = (bytes: number, microseconds: number): number => (microseconds > 0 ? bytes / (microseconds * 1e3) : 0);
