#!/usr/bin/env node
// The table of bench/gpu/profiler.sh: per size, busbw and time per op with the profiler plug-in
// (on-K.run.json) and without it (off-K.run.json), medians over the repeats, and on / off.
//   node bench/gpu/profiler-table.cjs WORK REPEATS
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [work, repeatsText] = process.argv.slice(2);
const repeats = Number(repeatsText);
const MiB = 1 << 20;
const median = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};
const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const sizes = new Map(); // bytes → { on: {bus: [], us: []}, off: …, algo }
for (let k = 1; k <= repeats; k++) {
  for (const side of ['on', 'off']) {
    const file = path.join(work, `${side}-${k}.run.json`);
    if (!fs.existsSync(file)) continue;
    const record = JSON.parse(fs.readFileSync(file, 'utf8'));
    for (const s of record.steps) {
      if (s.origin.kind !== 'sweep' || !s.timing) continue;
      const at = sizes.get(s.bytes) ?? { on: { bus: [], us: [] }, off: { bus: [], us: [] }, algo: '' };
      sizes.set(s.bytes, at);
      at[side].bus.push(s.busbw);
      at[side].us.push(s.timing.perOp ?? s.timing.mean);
      if (side === 'on' && s.nccl)
        at.algo = `${Object.keys(s.nccl.algo).join('/')} ${Object.keys(s.nccl.proto).join('/')} ${Object.keys(s.nccl.nChannels).join('/')}`;
    }
  }
}
console.log(
  `# the NCCL profiler plug-in on vs off, all_reduce, medians over ${repeats} repeats (targets, not asserted: busbw ≥ 0.98 at ≥ 1 MiB, time ≤ 1.02 below)`,
);
console.log(
  `#${'bytes'.padStart(12)}${'busbw on'.padStart(10)}${'off'.padStart(9)}${'on/off'.padStart(8)}${'us on'.padStart(10)}${'off'.padStart(10)}${'on/off'.padStart(8)}  target  NCCL's choice`,
);
for (const [bytes, at] of [...sizes].sort((a, b) => a[0] - b[0])) {
  const bus = [median(at.on.bus), median(at.off.bus)];
  const us = [median(at.on.us), median(at.off.us)];
  const large = bytes >= MiB;
  const r = large ? bus[0] / bus[1] : us[0] / us[1];
  const met = !Number.isFinite(r) ? 'n/a' : large ? (r >= 0.98 ? 'met' : 'MISSED') : r <= 1.02 ? 'met' : 'MISSED';
  console.log(
    ` ${String(bytes).padStart(12)}${f(bus[0]).padStart(10)}${f(bus[1]).padStart(9)}${f(bus[0] / bus[1], 3).padStart(8)}` +
      `${f(us[0], 1).padStart(10)}${f(us[1], 1).padStart(10)}${f(us[0] / us[1], 3).padStart(8)}  ${met.padEnd(6)}  ${at.algo}`,
  );
}
