#!/usr/bin/env node
// The table of bench/gpu/profiler.sh: per size, busbw and time per op with the profiler plug-in
// (on-K.run.json) and without it (off-K.run.json), medians over the repeats, and on / off; then
// every other side named (no-kernel, no-tuner: SIDE-K.run.json) against off the same way. Beside
// the medians, the best of the repeats: on a machine where each process lands in a fast or a slow
// mode of issuing calls (seen on the lent 2 × H200: 6.2 or 8.6 µs per all_reduce of 8 B, nccl-tests
// alike), the median says how often each side was unlucky, the best what it does when it is not.
// "off-again" (off once more) against off is an A/A pair: its ratios are what the machine resolves.
// Last, the paired reading (paired.cjs): each repeat's side over the same repeat's off, the median of
// those ratios with its 95 % interval, and the target read against the interval.
//   node bench/gpu/profiler-table.cjs WORK REPEATS [SIDE …]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { medianWithInterval, pairedRatios, tallyVerdict, verdict } = require('./paired.cjs');
const { readRecordFile } = require('../records.cjs');

const [work, repeatsText, ...named] = process.argv.slice(2);
const sides = [...new Set(['on', 'off', ...named])];
const repeats = Number(repeatsText);
const MiB = 1 << 20;
const median = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};
const best = (xs) => Math.min(...xs.filter((x) => Number.isFinite(x)));
const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const small = {}; // side → its time ratios to off below 1 MiB
const paired = {}; // side → per size: the median of its per-repeat ratios to off, the interval, the verdict
const verdicts = {}; // side → { met, missed: [bytes], unresolved: [bytes] }
const sizes = new Map(); // bytes → { [side]: {bus: [], us: []}, algo }
for (let k = 1; k <= repeats; k++) {
  for (const side of sides) {
    const file = path.join(work, `${side}-${k}.run.json`);
    if (!fs.existsSync(file)) continue;
    const record = readRecordFile(file);
    for (const s of record.steps) {
      if (s.origin.kind !== 'sweep' || !s.timing) continue;
      const at = sizes.get(s.bytes) ?? { ...Object.fromEntries(sides.map((x) => [x, { bus: [], us: [], issue: [] }])), algo: '' };
      sizes.set(s.bytes, at);
      // By repeat (k − 1), so that the paired reading sets each repeat's sides side by side.
      at[side].bus[k - 1] = s.busbw;
      at[side].us[k - 1] = s.timing.perOp ?? s.timing.mean;
      // How long the host took to issue one call of the loop (the slower rank): a loop that took no
      // longer than its issuing waited for the host, not the GPU.
      const issue = s.ranks.filter((r) => r.loopHost).map((r) => r.loopHost.issueUs / s.timing.samples);
      if (issue.length) at[side].issue.push(Math.max(...issue));
      if (side === 'on' && s.nccl)
        at.algo = `${Object.keys(s.nccl.algo).join('/')} ${Object.keys(s.nccl.proto).join('/')} ${Object.keys(s.nccl.nChannels).join('/')}`;
    }
  }
}
for (const side of sides.filter((x) => x !== 'off')) {
  console.log(
    `# the NCCL profiler plug-in ${side === 'on' ? 'on' : side === 'off-again' ? 'off once more (A/A)' : `on, ${side}`} vs off, all_reduce, medians over ${repeats} repeats (targets, not asserted: busbw ≥ 0.98 at ≥ 1 MiB, time ≤ 1.02 below)`,
  );
  console.log(
    `#${'bytes'.padStart(12)}${`busbw ${side}`.padStart(16)}${'off'.padStart(9)}${'ratio'.padStart(8)}${`us ${side}`.padStart(13)}${'off'.padStart(10)}${'ratio'.padStart(8)}${'issue/op'.padStart(10)}${'off'.padStart(7)}${'best'.padStart(8)}  target  NCCL's choice`,
  );
  for (const [bytes, at] of [...sizes].sort((a, b) => a[0] - b[0])) {
    const bus = [median(at[side].bus), median(at.off.bus)];
    const us = [median(at[side].us), median(at.off.us)];
    const large = bytes >= MiB;
    const r = large ? bus[0] / bus[1] : us[0] / us[1];
    const met = !Number.isFinite(r) ? 'n/a' : large ? (r >= 0.98 ? 'met' : 'MISSED') : r <= 1.02 ? 'met' : 'MISSED';
    console.log(
      ` ${String(bytes).padStart(12)}${f(bus[0]).padStart(16)}${f(bus[1]).padStart(9)}${f(bus[0] / bus[1], 3).padStart(8)}` +
        `${f(us[0], 1).padStart(13)}${f(us[1], 1).padStart(10)}${f(us[0] / us[1], 3).padStart(8)}` +
        `${f(median(at[side].issue), 1).padStart(10)}${f(median(at.off.issue), 1).padStart(7)}` +
        `${f(large ? best(at[side].bus.map((b) => -b)) / best(at.off.bus.map((b) => -b)) : best(at[side].us) / best(at.off.us), 3).padStart(8)}  ${met.padEnd(6)}  ${at.algo}`,
    );
    if (!large && Number.isFinite(us[0] / us[1])) (small[side] ??= []).push(us[0] / us[1]);
    const key = large ? 'bus' : 'us';
    const ci = medianWithInterval(pairedRatios(at[side][key], at.off[key]));
    const v = verdict(ci, large ? 0.98 : 1.02, large ? 'min' : 'max');
    (paired[side] ??= []).push(`${bytes} ${ci.median.toFixed(3)} [${ci.lo.toFixed(3)}–${ci.hi.toFixed(3)}] ${v}`);
    tallyVerdict((verdicts[side] ??= { met: 0, missed: [], unresolved: [] }), v, bytes);
    if (!ci.exact) verdicts[side].inexact = ci.n;
  }
}
// Each side's time ratios below 1 MiB in one line, the A/A pair's first: a side is told apart from
// off only where its ratios leave the range that off against itself spans.
const range = (xs) =>
  `${f(Math.min(...xs), 3)}–${f(Math.max(...xs), 3)}, median ${f(median(xs), 3)}, ${xs.filter((x) => x > 1.02).length} of ${xs.length} above 1.02`;
for (const side of Object.keys(small).sort((a, b) => (b === 'off-again') - (a === 'off-again')))
  console.log(
    `# time per op below 1 MiB, ${side} / off over the sizes: ${range(small[side])}${side === 'off-again' ? ' (A/A: the same side twice)' : ''}`,
  );
// The paired reading: per size, each repeat's side over that repeat's off (busbw at 1 MiB and more,
// time per op below), the median of the ratios and its 95 % interval; the target read against it.
for (const side of Object.keys(paired).sort((a, b) => (b === 'off-again') - (a === 'off-again'))) {
  const v = verdicts[side];
  console.log(
    `# paired, ${side} / off per repeat (busbw ≥ 0.98 at ≥ 1 MiB, time ≤ 1.02 below; median [95 % interval] verdict): ${paired[side].join('; ')}`,
  );
  console.log(
    `# paired verdicts, ${side}: ${v.met} met, ${v.missed.length} missed${v.missed.length ? ` (${v.missed.join(', ')} B)` : ''}, ${v.unresolved.length} unresolved by the machine's noise${v.unresolved.length ? ` (${v.unresolved.join(', ')} B)` : ''}${v.inexact ? ` — only ${v.inexact} pairs: no 95 % interval, the whole range instead` : ''}${side === 'off-again' ? ' (A/A: what the machine resolves)' : ''}`,
  );
}
