// Paired ratios for the GPU benches: each repeat runs every side once, back to back in a random
// order, so side A's figure over side B's of the same repeat cancels what drifts between repeats
// (on the lent machines each process lands in a fast or a slow mode of issuing calls, 6.5 or
// 9.5 µs per all_reduce of 8 B, and a median over 5–15 repeats of either side alone flips between
// the modes). The median of those ratios comes with a distribution-free confidence interval (the
// order statistics that a sign test gives, no assumption about the shape), and a target is read
// against the interval: met where all of it lies on the right side, missed where all of it lies on
// the wrong one, and unresolved where the machine's noise straddles it.
'use strict';

/** P(X ≤ k) for X ~ Binomial(n, 1/2), n ≤ 1000. */
function binomialCdfHalf(n, k) {
  if (k < 0) return 0;
  if (k >= n) return 1;
  // log of C(n, i) / 2^n summed in a stable way
  let logTerm = -n * Math.LN2; // i = 0
  let sum = Math.exp(logTerm);
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log((n - i + 1) / i);
    sum += Math.exp(logTerm);
  }
  return Math.min(1, sum);
}

/**
 * The median of `values` (non-finite ones dropped) with a confidence interval of at least
 * `level` (default 0.95) from order statistics: [x(j), x(n+1-j)] with the largest j such that
 * P(Binomial(n, 1/2) < j) ≤ (1 − level) / 2. Below 6 values no 95 % interval exists: lo and hi
 * are then the smallest and largest value and `exact` is false.
 */
function medianWithInterval(values, level = 0.95) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  const n = v.length;
  if (n === 0) return { n: 0, median: NaN, lo: NaN, hi: NaN, level: NaN, exact: false };
  if (n > 1000) throw new RangeError(`medianWithInterval: at most 1000 values (got ${n})`);
  const median = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  const tail = (1 - level) / 2;
  let j = 0; // 1-based order statistic; 0: none qualifies
  while (j + 1 <= n / 2 && binomialCdfHalf(n, j) <= tail) j++;
  if (j === 0) return { n, median, lo: v[0], hi: v[n - 1], level: 1 - 2 * binomialCdfHalf(n, 0), exact: false };
  return { n, median, lo: v[j - 1], hi: v[n - j], level: 1 - 2 * binomialCdfHalf(n, j - 1), exact: true };
}

/**
 * A target read against an interval: `limit` with `direction` 'max' (the ratio must be ≤ limit,
 * as time per op) or 'min' (≥ limit, as busbw). 'met', 'missed' or 'unresolved'.
 */
function verdict(interval, limit, direction) {
  if (!Number.isFinite(interval.lo) || !Number.isFinite(interval.hi)) return 'n/a';
  if (direction === 'max') return interval.hi <= limit ? 'met' : interval.lo > limit ? 'missed' : 'unresolved';
  return interval.lo >= limit ? 'met' : interval.hi < limit ? 'missed' : 'unresolved';
}

/** Per-repeat ratios a[k] / b[k] where both are finite and b[k] > 0 (a repeat either side lacks, a hole: skipped). */
function pairedRatios(a, b) {
  const out = [];
  for (let k = 0; k < Math.min(a.length, b.length); k++)
    if (Number.isFinite(a[k]) && Number.isFinite(b[k]) && b[k] > 0) out.push(a[k] / b[k]);
  return out;
}

/**
 * Counts `v` (verdict's answer) into `tally` ({ met, missed: [], unresolved: [] }): met by number,
 * the others by `item` (what a table names the size by).
 */
function tallyVerdict(tally, v, item) {
  if (v === 'met') tally.met++;
  else if (v === 'missed') tally.missed.push(item);
  else if (v === 'unresolved') tally.unresolved.push(item);
  return tally;
}

module.exports = { binomialCdfHalf, medianWithInterval, verdict, pairedRatios, tallyVerdict };
