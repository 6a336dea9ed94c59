#!/usr/bin/env node
// Data made and checked on one GPU (the data kernels), for a machine with a single GPU: every
// collective on one rank in and out of place at 4 Mi elements, each of the twelve types, each
// redop. Prints the record's verdicts, the rank's join line and the run's wall time.
//   node test/gpu/data-one-gpu.cjs [WORK]
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { readRecordFile } = require('../../bench/records.cjs');

const root = path.resolve(__dirname, '../..');
const work = process.argv[2] || fs.mkdtempSync(path.join(os.tmpdir(), 'clab-data-'));
const count = 4 << 20;
const steps = [];
for (const dtype of [
  'float32',
  'float64',
  'float16',
  'bfloat16',
  'float8_e4m3',
  'float8_e5m2',
  'int8',
  'uint8',
  'int32',
  'uint32',
  'int64',
  'uint64',
]) {
  // NCCL 2.28.3 refused avg of float8 on one rank (NCCL_ERROR_INVALID_ARGUMENT, 2026-11-24).
  for (const redop of dtype.startsWith('float8') ? ['sum', 'prod', 'min', 'max'] : ['sum', 'prod', 'min', 'max', 'avg'])
    steps.push({ op: 'all_reduce', dtype, redop, count, data: { kind: 'random', seed: steps.length } });
  for (const op of [
    'broadcast',
    'reduce',
    'all_gather',
    'all_gather_into_tensor',
    'gather',
    'scatter',
    'reduce_scatter',
    'reduce_scatter_tensor',
    'all_to_all',
    'all_to_all_single',
  ]) {
    for (const inPlace of [false, true]) {
      if (inPlace && op.startsWith('all_to_all')) continue;
      steps.push({ op, dtype, count, inPlace, root: 0, redop: 'sum', data: { kind: 'arange_rank', start: 1 } });
    }
  }
}
const file = path.join(work, 'data-one-gpu.scenario.json');
fs.writeFileSync(
  file,
  JSON.stringify({ version: 1, name: 'data on one GPU', world: { ranks: 1 }, defaults: { warmup: 1, iters: 3 }, steps }),
);
const out = path.join(work, 'data-one-gpu.run.json');
const t0 = Date.now();
const r = spawnSync(process.execPath, [path.join(root, 'bin/clab.cjs'), 'run', file, '--backend', 'nccl', '--out', out], {
  encoding: 'utf8',
  maxBuffer: 1 << 28,
});
const seconds = (Date.now() - t0) / 1000;
const rec = fs.existsSync(out) ? readRecordFile(out) : null;
if (!rec) {
  console.log(`FAIL no record (exit ${r.status}): ${(r.stderr || r.stdout).split('\n').slice(-5).join(' | ')}`);
  process.exit(1);
}
for (const l of rec.logs.filter((x) => x.text.includes('joined'))) console.log(`# ${l.text}`);
const bad = rec.steps.filter((s) => s.verdict !== 'pass');
const checked = rec.steps.reduce((a, s) => a + s.ranks.reduce((b, x) => b + x.checked, 0), 0);
// The data kernels' slices on the stream: how long making and checking took, per GB of output.
for (const phase of ['data-fill', 'data-check']) {
  const ev = rec.events.filter((e) => e.phase === phase);
  const gb = ev.reduce((a, e) => a + rec.steps[e.step].bytes, 0) / 1e9;
  const us = ev.reduce((a, e) => a + (e.endNs - e.startNs) / 1e3, 0);
  const bad = ev.filter((e) => !(e.endNs >= e.startNs));
  console.log(
    `# ${phase}: ${ev.length} slices, ${us.toFixed(0)} µs for ${gb.toFixed(2)} GB of step bytes (${(gb / (us / 1e6)).toFixed(0)} GB/s)${bad.length ? `; ${bad.length} end before they start` : ''}`,
  );
}
const first = bad[0];
const detail = first
  ? `; first bad: ${first.label} ${first.verdict} ${first.wrong} wrong ${JSON.stringify(first.ranks[0]?.mismatches?.slice(0, 2) ?? [])} ${first.ranks[0]?.error?.message ?? ''}`
  : '';
const ok = !bad.length && rec.status === 'passed';
console.log(
  `${ok ? 'PASS' : 'FAIL'} ${rec.steps.length} of ${steps.length} steps on one GPU (${rec.status}), ${checked} elements checked, ${seconds.toFixed(1)} s wall${detail}${rec.error ? `; ${rec.error.message}` : ''}`,
);
process.exit(ok ? 0 : 1);
