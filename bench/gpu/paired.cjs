// Paired ratios for the GPU benches: each repeat runs every side once, back to back in a random
// order, so side A's figure over side B's of the same repeat cancels what drifts between repeats.
// The median of those ratios comes with a distribution-free confidence interval, and a target is
// read against the interval: met where all of it lies on the right side, missed where all of it
// lies on the wrong one, unresolved where the machine's noise straddles it.
//
// The statistics are the lab's own (src/shared/data/stats.ts, the NCCL A/B reads them too), bundled
// by `npm run build` (scripts/bundle.mjs) into dist/stats.cjs so that these scripts run with plain
// node on a GPU machine; only the tally of a table's verdicts is the benches' own.
'use strict';

const path = require('node:path');

const STATS = path.join(__dirname, '..', '..', 'dist', 'stats.cjs');
let stats;
try {
  stats = require(STATS);
} catch (e) {
  if (e.code !== 'MODULE_NOT_FOUND') throw e;
  throw new Error(`bench/gpu/paired.cjs: ${STATS} is missing: run \`npm run build\` (or \`npm run build:cli\`) first`);
}
const { binomialCdfHalf, medianWithInterval, targetVerdict, pairedRatios } = stats;

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

module.exports = { binomialCdfHalf, medianWithInterval, verdict: targetVerdict, pairedRatios, tallyVerdict };
