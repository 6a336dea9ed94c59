#!/usr/bin/env node
// Helper of bench/gpu/run.sh (plain Node, no dependencies: the GPU machine has no node_modules; a
// record is read by clab's own reader, bundled by `npm run build`: bench/records.cjs).
//
//   node bench/gpu/results.cjs record RUN.run.json
//       A clab run record as the lines torch_collectives.py prints, one per step that moves bytes:
//         RESULT op=all_reduce bytes=67108864 count=16777216 time_us=... algbw=... busbw=... wrong=0 verdict=pass
//       preceded by one line about the run:
//         STATUS status=passed backend=nccl world=2 steps=28 wrong=0 error=null
//       op is the collective's name (all_gather_into_tensor, ...) or "send" for a point-to-point
//       step; bytes, algbw and busbw are the record's own (nccl-tests' conventions); time_us is
//       timing.perOp (nccl-tests' time per op: the timed loop's duration over the iterations,
//       averaged over ranks; on nccl the loop run with one event pair around it, loopUs;
//       timing.mean for records that lack it). time_ev_us is timing.mean, the mean of each
//       iteration's own event-pair duration. time_each_us is the span of the loop that has an
//       event pair around every iteration (spanUs) over the iterations, averaged over ranks.
//
//   node bench/gpu/results.cjs table --clab FILE... --torch FILE...
//       Median per (op, bytes) over the RESULT lines of each side's files (one file per run;
//       lines with wrong != 0, a failed verdict or no busbw are not counted) and prints the
//       side-by-side table, then the summary lines, each prefixed with "SUMMARY ".
'use strict';
const fs = require('fs');
const { readRecordFile } = require('../records.cjs');

const LARGE = 1024 * 1024; // busbw figures from here on (the bench has 64 MiB and up); smaller ones (8 B) by time

function fmtBytes(b) {
  const units = [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ];
  for (const [u, v] of units) if (b >= v && b % v === 0) return `${b / v} ${u}`;
  return `${b} B`;
}
const num = (x, d = 3) => (x == null || !Number.isFinite(x) ? 'nan' : x.toFixed(d));
const f2 = (x) => (x == null || !Number.isFinite(x) ? 'n/a' : x.toFixed(2));
function median(xs) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
const ratio = (a, b) => (a == null || b == null || !(b > 0) ? null : a / b);

const ELEMENT_BYTES = { float64: 8, float32: 4, float16: 2, bfloat16: 2, int64: 8, int32: 4, int8: 1, uint8: 1 };

function record(file) {
  const r = readRecordFile(file);
  const steps = Array.isArray(r.steps) ? r.steps : [];
  const wrong = steps.reduce((s, x) => s + (x.wrong || 0), 0);
  const err = r.error ? r.error.message || String(r.error) : null;
  const backend = r.environment ? r.environment.backend : 'unknown';
  console.log(
    `STATUS status=${r.status} backend=${backend} world=${r.world} steps=${steps.length} wrong=${wrong} error=${JSON.stringify(err)}`,
  );
  for (const s of steps) {
    const a = s.action || {};
    if (!(s.bytes > 0) || !s.timing) continue;
    const op = a.kind === 'p2p' ? 'send' : a.op;
    const count = ELEMENT_BYTES[a.dtype] ? s.bytes / ELEMENT_BYTES[a.dtype] : a.count; // elements behind bytes
    const spans = (s.ranks || []).filter((x) => x.timesUs && x.timesUs.length && x.spanUs > 0).map((x) => x.spanUs / x.timesUs.length);
    const each = spans.length ? ` time_each_us=${num(spans.reduce((p, q) => p + q, 0) / spans.length, 2)}` : '';
    console.log(
      `RESULT op=${op} bytes=${s.bytes} count=${count} time_us=${num(s.timing.perOp ?? s.timing.mean, 2)} time_ev_us=${num(s.timing.mean, 2)}${each} ` +
        `algbw=${num(s.algbw)} busbw=${num(s.busbw)} wrong=${s.wrong} verdict=${s.verdict} backend=${backend}`,
    );
  }
}

function parseResults(files) {
  const runs = [];
  for (const f of files) {
    let text = '';
    try {
      text = fs.readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    const rows = [];
    for (const line of text.split('\n')) {
      if (!line.startsWith('RESULT ')) continue;
      const kv = {};
      for (const m of line.matchAll(/(\w+)=(\S+)/g)) kv[m[1]] = m[2];
      if (!kv.op || !kv.bytes) continue;
      const ok = kv.wrong === '0' && !['fail', 'error', 'not-run'].includes(kv.verdict) && Number.isFinite(Number(kv.busbw));
      rows.push({
        key: `${kv.op} ${kv.bytes}`,
        op: kv.op,
        bytes: Number(kv.bytes),
        busbw: Number(kv.busbw),
        us: Number(kv.time_us),
        evUs: kv.time_ev_us === undefined ? NaN : Number(kv.time_ev_us),
        eachUs: kv.time_each_us === undefined ? NaN : Number(kv.time_each_us),
        ok,
        wrong: kv.wrong,
      });
    }
    runs.push(rows);
  }
  return runs;
}

function table(clabFiles, torchFiles) {
  const sides = { clab: parseResults(clabFiles), torch: parseResults(torchFiles) };
  const keys = [];
  const info = new Map();
  for (const side of ['clab', 'torch'])
    for (const run of sides[side])
      for (const row of run)
        if (!info.has(row.key)) {
          info.set(row.key, { op: row.op, bytes: row.bytes });
          keys.push(row.key);
        }
  const cell = (side, key) => {
    const per = sides[side].map((run) => run.find((r) => r.key === key));
    const counted = per.filter((r) => r && r.ok);
    return {
      busbw: median(counted.map((r) => r.busbw)),
      us: median(counted.map((r) => r.us)),
      evUs: median(counted.map((r) => r.evUs).filter(Number.isFinite)),
      eachUs: median(counted.map((r) => r.eachUs).filter(Number.isFinite)),
      // busbw had it come from the loop with an event pair around every iteration (busbw ∝ 1 / time)
      busbwEach: median(counted.filter((r) => r.eachUs > 0).map((r) => (r.busbw * r.us) / r.eachUs)),
      runs: per.map((r) => (!r ? '-' : r.ok ? r.busbw.toFixed(1) : `wrong=${r.wrong}`)).join(' ') || 'none',
      runsUs: per.map((r) => (!r ? '-' : r.ok ? r.us.toFixed(1) : `wrong=${r.wrong}`)).join(' ') || 'none',
    };
  };
  const pad = (s, n) => String(s).padEnd(n);
  const lpad = (s, n) => String(s).padStart(n);
  console.log(
    `   ${pad('op', 24)}${pad('size', 9)}${lpad('clab busbw', 11)}${lpad('torch busbw', 12)}${lpad('clab/torch', 11)}   per run (GB/s): clab | torch`,
  );
  const big = [];
  const small = [];
  for (const key of keys) {
    const { op, bytes } = info.get(key);
    const c = cell('clab', key);
    const t = cell('torch', key);
    if (bytes < LARGE) {
      small.push({ op, bytes, c, t });
      continue;
    }
    const q = ratio(c.busbw, t.busbw);
    big.push({ op, bytes, q, qEach: ratio(c.busbwEach, t.busbw) });
    console.log(
      `   ${pad(op, 24)}${pad(fmtBytes(bytes), 9)}${lpad(f2(c.busbw), 11)}${lpad(f2(t.busbw), 12)}${lpad(f2(q), 11)}   ${c.runs} | ${t.runs}`,
    );
  }
  for (const { op, bytes, c, t } of small) {
    const q = ratio(c.us, t.us);
    console.log(
      `   ${pad(op, 24)}${pad(fmtBytes(bytes), 9)} mean time per op: clab ${f2(c.us)} us, torch ${f2(t.us)} us, clab/torch ${f2(q)}   per run (us): ${c.runsUs} | ${t.runsUs}`,
    );
    if (t.evUs != null || c.evUs != null)
      console.log(
        `   ${pad('', 33)} mean of each call's own event pair (GPU time, without launch gaps): clab ${f2(c.evUs)} us, torch ${f2(t.evUs)} us`,
      );
  }
  // Summary lines, for run.sh's summary block.
  const qs = big.filter((b) => b.q != null);
  if (qs.length) {
    const sorted = [...qs].sort((a, b) => a.q - b.q);
    const lo = sorted[0];
    const below = sorted.filter((b) => b.q < 0.98).map((b) => `${b.op} ${fmtBytes(b.bytes)} ${b.q.toFixed(2)}`);
    const from = fmtBytes(Math.min(...big.map((b) => b.bytes)));
    console.log(
      `SUMMARY busbw clab/torch, ${qs.length} of ${big.length} figures >= ${from}: min ${lo.q.toFixed(2)} (${lo.op} ${fmtBytes(lo.bytes)}), ` +
        `median ${median(qs.map((b) => b.q)).toFixed(2)}, max ${sorted[sorted.length - 1].q.toFixed(2)}; ` +
        `${qs.length - below.length} of ${qs.length} at or above 0.98 (target >= 0.98)` +
        (below.length ? `; below: ${below.join(', ')}` : ''),
    );
    const each = big.filter((b) => b.qEach != null && b.q != null);
    if (each.length)
      console.log(
        `SUMMARY busbw clab/torch had clab timed the loop with an event pair around every iteration: min ${Math.min(...each.map((b) => b.qEach)).toFixed(2)}, ` +
          `median ${median(each.map((b) => b.qEach)).toFixed(2)}; ${each.filter((b) => b.qEach >= 0.98).length} of ${each.length} at or above 0.98; ` +
          `clab's own loop / per-iteration-events busbw: median ${median(each.map((b) => b.q / b.qEach)).toFixed(3)}`,
      );
  } else {
    console.log(`SUMMARY busbw clab/torch: n/a (no figure on ${big.length ? 'one side' : 'either side'})`);
  }
  for (const { op, bytes, c, t } of small)
    console.log(
      `SUMMARY ${op} ${fmtBytes(bytes)}, mean time per op: clab ${f2(c.us)} us, torch ${f2(t.us)} us, ratio ${f2(ratio(c.us, t.us))} (target <= 1.1)` +
        (t.evUs != null || c.evUs != null ? `; each call's own event pair: clab ${f2(c.evUs)} us, torch ${f2(t.evUs)} us` : '') +
        (c.eachUs != null ? `; clab's loop with an event pair per call: ${f2(c.eachUs)} us per op` : ''),
    );
}

function main(argv) {
  const [cmd, ...rest] = argv;
  if (cmd === 'record' && rest.length === 1) return record(rest[0]);
  if (cmd === 'table') {
    const files = { clab: [], torch: [] };
    let side = null;
    for (const a of rest) {
      if (a === '--clab' || a === '--torch') side = a.slice(2);
      else if (side) files[side].push(a);
    }
    return table(files.clab, files.torch);
  }
  console.error('usage: results.cjs record RUN.run.json | table --clab FILE... --torch FILE...');
  process.exit(2);
}

main(process.argv.slice(2));
