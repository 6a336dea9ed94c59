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

// Paired statistics: each repeat runs every side once, back to back, so one side's figure over the
// other's in the same repeat cancels what drifts between repeats (on the lent GPU machines each
// process lands in a fast or a slow mode of issuing calls, and a median over 5–15 repeats of either
// side alone flips between the modes). The median of those ratios comes with a distribution-free
// interval (the order statistics a sign test gives: no assumption about the shape). The GPU benches
// (bench/gpu/paired.cjs, through dist/stats.cjs) and the NCCL A/B (core/service/nccl-ab) read them.

/** The median of paired ratios and its interval; `exact` false where too few values give no interval of `level`. */
export interface MedianInterval {
  /** The finite values it was read from. */
  n: number;
  median: number;
  lo: number;
  hi: number;
  /** The interval's coverage (≥ the level asked for where exact); NaN where there were no values. */
  level: number;
  exact: boolean;
}

/** medianWithInterval sums binomial terms up to n / 2 per candidate: bounded so that a call stays cheap. */
export const MAX_PAIRED_VALUES = 1000;

/** P(X ≤ k) for X ~ Binomial(n, 1/2), n ≤ MAX_PAIRED_VALUES. */
export function binomialCdfHalf(n: number, k: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  // Summed as logs of C(n, i) / 2^n: 2^-n underflows past n ≈ 1074.
  let logTerm = -n * Math.LN2;
  let sum = Math.exp(logTerm);
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log((n - i + 1) / i);
    sum += Math.exp(logTerm);
  }
  return Math.min(1, sum);
}

/**
 * The median of `values` (non-finite ones dropped) with a confidence interval of at least `level`
 * from order statistics: [x(j), x(n+1-j)] with the largest j such that P(Binomial(n, 1/2) < j) ≤
 * (1 − level) / 2. Below 6 values no 95 % interval exists: lo and hi are then the smallest and the
 * largest value and `exact` is false.
 */
export function medianWithInterval(values: readonly number[], level = 0.95): MedianInterval {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  const n = v.length;
  if (n === 0) return { n: 0, median: NaN, lo: NaN, hi: NaN, level: NaN, exact: false };
  if (n > MAX_PAIRED_VALUES) throw new RangeError(`medianWithInterval: at most ${MAX_PAIRED_VALUES} values (got ${n})`);
  const median = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  const tail = (1 - level) / 2;
  // j: the first k whose P(X ≤ k) passes the tail (at most n / 2), the binomial's sum walked up once
  // as binomialCdfHalf sums it: `below` is P(X ≤ j − 1), `atJ` P(X ≤ j).
  let logTerm = -n * Math.LN2;
  let atJ = Math.exp(logTerm);
  let below = 0;
  let j = 0;
  while (j + 1 <= n / 2 && Math.min(1, atJ) <= tail) {
    j++;
    below = atJ;
    logTerm += Math.log((n - j + 1) / j);
    atJ += Math.exp(logTerm);
  }
  if (j === 0) return { n, median, lo: v[0], hi: v[n - 1], level: 1 - 2 * Math.min(1, atJ), exact: false };
  return { n, median, lo: v[j - 1], hi: v[n - j], level: 1 - 2 * Math.min(1, below), exact: true };
}

export type TargetVerdict = 'met' | 'missed' | 'unresolved' | 'n/a';

/**
 * A target read against an interval: the ratio must be ≤ `limit` (`direction` 'max', as a time per
 * op) or ≥ it ('min', as busbw). Met where all of the interval lies on the right side, missed where
 * all of it lies on the wrong one, unresolved where the machine's noise straddles the limit.
 */
export function targetVerdict(interval: { lo: number; hi: number }, limit: number, direction: 'max' | 'min'): TargetVerdict {
  if (!Number.isFinite(interval.lo) || !Number.isFinite(interval.hi)) return 'n/a';
  if (direction === 'max') return interval.hi <= limit ? 'met' : interval.lo > limit ? 'missed' : 'unresolved';
  return interval.lo >= limit ? 'met' : interval.hi < limit ? 'missed' : 'unresolved';
}

/** Per-repeat ratios a[k] / b[k] where both are finite and b[k] > 0 (a repeat either side lacks is skipped). */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < Math.min(a.length, b.length); k++)
    if (Number.isFinite(a[k]) && Number.isFinite(b[k]) && b[k] > 0) out.push(a[k] / b[k]);
  return out;
}
