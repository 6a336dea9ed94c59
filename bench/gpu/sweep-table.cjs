#!/usr/bin/env node
// The table of bench/gpu/sweep.sh: clab's run records beside nccl-tests' logs, per operation and
// size, medians over the repeats, ratios clab / nccl-tests, each figure's spread over the repeats, and
// the ratio of the best of the repeats (on the lent 2 × H200 each process of either tool lands in a
// fast or a slow mode of issuing calls, 6.2 or 8.6 µs per all_reduce of 8 B: the median says how
// often a side was unlucky, the best what it does when it is not). With peer2-K-BINARY.log (PEER_AA=1)
// nccl-tests beside itself, an A/A pair: the ratios the machine gives two identical sides.
//   node bench/gpu/sweep-table.cjs WORK REPEATS
// WORK holds clab-K.run.json, clab-K.wall and peer-K-BINARY.log, peer-K.wall (K = 1 … REPEATS).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { medianWithInterval, pairedRatios, tallyVerdict, verdict } = require('./paired.cjs');
const { readRecordFile } = require('../records.cjs');

const [work, repeatsText] = process.argv.slice(2);
const repeats = Number(repeatsText);
// clab's collective → the nccl-tests binary that times it (same byte conventions: bench/gpu/README.md).
const PEER = {
  all_reduce: 'all_reduce_perf',
  all_gather_into_tensor: 'all_gather_perf',
  reduce_scatter_tensor: 'reduce_scatter_perf',
  broadcast: 'broadcast_perf',
  reduce: 'reduce_perf',
  all_to_all_single: 'alltoall_perf',
  gather: 'gather_perf',
  scatter: 'scatter_perf',
  // One way (0→1) and nccl-tests' own exchange (every rank sends to the next, receives from the previous): both
  // beside sendrecv_perf, which is the second; a one-way send should be no slower.
  send: 'sendrecv_perf',
  sendrecv: 'sendrecv_perf',
};
const MiB = 1 << 20;
const median = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};
/** (max − min) / median over the repeats: how far apart the runs of one figure lie. */
const spread = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x));
  return v.length < 2 ? 0 : (Math.max(...v) - Math.min(...v)) / median(v);
};
const best = (xs) => Math.min(...xs.filter((x) => Number.isFinite(x)));
const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const read = (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');

// figures[op][bytes] = { clabBus: [], clabUs: [], peerBus: [], peerUs: [], wrong: [] }
const figures = {};
const at = (op, bytes) =>
  ((figures[op] ??= {})[bytes] ??= {
    clabBus: [],
    clabUs: [],
    clabBBus: [],
    clabBUs: [],
    peerBus: [],
    peerUs: [],
    peer2Bus: [],
    peer2Us: [],
    wrong: [],
  });
/** A sweep step's op name in this table. */
const opOf = (s) => (s.action.kind === 'p2p' ? 'send' : s.action.kind === 'group' ? 'sendrecv' : s.action.op);
// Below 1 MiB, how much of each loop its rank's host thread spent issuing it (issue / loop, per op):
// near 1 the loop waited for its calls (bound by issuing), well below it the GPU was the bound.
const smallIssue = {};
const walls = { clab: [], peer: [], clabB: [], answer: [] };
/** The wall of a clab run's `time to answer:` line in its log (s): the answer printed, before its ranks' processes end; NaN where there is none. */
const answerOf = (file) => {
  const m = /^time to answer: ([\d.]+) (s|ms)\b/m.exec(read(file));
  return m ? Number(m[1]) / (m[2] === 'ms' ? 1000 : 1) : NaN;
};
const slowLoops = [];
const issuing = { loops: 0, faulted: 0, faults: 0, blocked: 0, preempted: 0, slowestShare: 0 }; // every loop's issuing, over all runs
// How clab's sweep steps were launched (GRAPH, sweep.sh): graph where every rank's loop was a graph's replay.
const launches = { graph: 0, steps: 0 };
for (let k = 1; k <= repeats; k++) {
  walls.clab.push(Number(read(path.join(work, `clab-${k}.wall`)).trim()) || NaN);
  walls.peer.push(Number(read(path.join(work, `peer-${k}.wall`)).trim()) || NaN);
  walls.answer.push(answerOf(path.join(work, `clab-${k}.log`)));
  const clabBWall = path.join(work, `clab-b-${k}.wall`);
  if (fs.existsSync(clabBWall)) walls.clabB.push(Number(read(clabBWall).trim()) || NaN);
  const recFile = path.join(work, `clab-${k}.run.json`);
  if (fs.existsSync(recFile)) {
    const rec = readRecordFile(recFile);
    for (const s of rec.steps) {
      if (s.origin.kind !== 'sweep') continue;
      const op = opOf(s);
      const cell = at(op, s.bytes);
      launches.steps++;
      if (s.ranks.length && s.ranks.every((r) => r.launch === 'graph')) launches.graph++;
      // The loop timed as a whole against the same iterations timed one by one (the bench's
      // outlier of 2026-11-23: a slow loop whose iterations were not).
      // Tiny ops are bound by issuing on both sides: a loop counts as slow only 5 µs per op (100 µs
      // over 20 iterations) past its iterations, as src/shared/run/rank/loop-host.ts has it.
      if (s.timing.perOp > 1.25 * s.timing.median && s.timing.perOp - s.timing.median >= 5 && s.bytes >= MiB) {
        // What each rank's host thread did while it issued the loop (the record's loopHost).
        const host = s.ranks
          .filter((r) => r.loopHost)
          .map(
            (r) =>
              `rank ${r.rank} issued it in ${r.loopHost.issueUs.toFixed(0)} of ${r.loopUs.toFixed(0)} µs, ${r.loopHost.faults} page faults, blocked ${r.loopHost.blocked ?? '?'}×, preempted ${r.loopHost.preempted}×`,
          )
          .join('; ');
        slowLoops.push(
          `${op} ${s.bytes} B run ${k}: loop ${s.timing.perOp.toFixed(1)} µs/op, iterations median ${s.timing.median.toFixed(1)} µs${host ? ` (${host})` : ''}`,
        );
      }
      for (const r of s.ranks) {
        if (!r.loopHost) continue;
        if (s.bytes < MiB && r.loopUs > 0) (smallIssue[op] ??= []).push(r.loopHost.issueUs / r.loopUs);
        issuing.loops++;
        if (r.loopHost.faults) issuing.faulted++;
        issuing.faults += r.loopHost.faults;
        issuing.preempted += r.loopHost.preempted;
        issuing.blocked += r.loopHost.blocked ?? 0;
        if (s.bytes >= MiB) issuing.slowestShare = Math.max(issuing.slowestShare, r.loopHost.issueUs / r.loopUs);
      }
      // By repeat (k − 1): the paired reading sets each repeat's sides side by side.
      cell.clabBus[k - 1] = s.verdict === 'pass' ? s.busbw : NaN;
      cell.clabUs[k - 1] = s.verdict === 'pass' ? s.timing.perOp : NaN;
      cell.wrong.push(s.wrong);
      cell.inPlace = s.action.inPlace === true;
    }
  }
  // CLAB_B_ENV and CLAB_B_NODE (sweep.sh): clab once more with that environment or those Node options, as side clab-b.
  const clabBFile = path.join(work, `clab-b-${k}.run.json`);
  if (fs.existsSync(clabBFile))
    for (const s of readRecordFile(clabBFile).steps) {
      if (s.origin.kind !== 'sweep') continue;
      const cell = at(opOf(s), s.bytes);
      cell.clabBBus[k - 1] = s.verdict === 'pass' ? s.busbw : NaN;
      cell.clabBUs[k - 1] = s.verdict === 'pass' ? s.timing.perOp : NaN;
    }
  for (const [op, bin] of Object.entries(PEER)) {
    for (const name of ['peer', 'peer2']) {
      for (const line of read(path.join(work, `${name}-${k}-${bin}.log`)).split('\n')) {
        const c = line.trim().split(/\s+/);
        // size count type redop root | out of place: time algbw busbw #wrong | in place: the same
        if (!/^\d+$/.test(c[0]) || c.length < 9) continue;
        const cell = at(op, Number(c[0]));
        const ip = cell.inPlace && c.length >= 13;
        cell[`${name}Us`][k - 1] = Number(c[ip ? 9 : 5]);
        cell[`${name}Bus`][k - 1] = Number(c[ip ? 11 : 7]);
      }
    }
  }
}

const summary = {
  busLow: [],
  timeHigh: [],
  oneSided: [],
  smallRatios: [],
  spreads: [],
  aboveOne: {},
  aboveOneBest: {},
  aa: {},
  clabB: {},
  paired: {},
};
/** The first ten of a list, and how many more. */
const some = (list) => list.slice(0, 10).join('; ') + (list.length > 10 ? `; … ${list.length - 10} more` : '');
console.log(
  `${'op'.padEnd(24)} ${'bytes'.padStart(11)} ${'clab busbw'.padStart(10)} ${'nccl-tests'.padStart(10)} ${'ratio'.padStart(6)}  ${'clab µs'.padStart(9)} ${'nccl µs'.padStart(9)} ${'ratio'.padStart(6)} ${'best'.padStart(6)}  spread clab/peer  wrong`,
);
for (const [op, sizes] of Object.entries(figures)) {
  for (const [bytesText, c] of Object.entries(sizes).sort((a, b) => a[0] - b[0])) {
    const bytes = Number(bytesText);
    const bus = [median(c.clabBus), median(c.peerBus)];
    const us = [median(c.clabUs), median(c.peerUs)];
    const busRatio = bus[0] / bus[1];
    const usRatio = us[0] / us[1];
    // The best of the repeats, each side's: the highest busbw at 1 MiB and more, the shortest time below.
    const bestRatio = bytes >= MiB ? best(c.clabBus.map((x) => -x)) / best(c.peerBus.map((x) => -x)) : best(c.clabUs) / best(c.peerUs);
    if (bytes < MiB && c.peer2Us.length) (summary.aa[op] ??= []).push(median(c.peer2Us) / us[1]);
    // The paired reading (paired.cjs) of issue 27's ops: each repeat's clab over that repeat's
    // nccl-tests, the median with its 95 % interval, the target (≤ 1.0 below 1 MiB) read against it.
    if (bytes < MiB && ['all_reduce', 'send', 'sendrecv'].includes(op)) {
      // clab, nccl-tests' second run (A/A) and clab-b against nccl-tests; clab against clab-b.
      for (const [who, mine, theirs] of [
        ['clab', c.clabUs, c.peerUs],
        ['A/A', c.peer2Us, c.peerUs],
        ['clab-b', c.clabBUs, c.peerUs],
        ['clab / clab-b', c.clabUs, c.clabBUs],
      ]) {
        if (!mine.length || !theirs.length) continue;
        const ci = medianWithInterval(pairedRatios(mine, theirs));
        const v = verdict(ci, 1.0, 'max');
        const p = ((summary.paired[op] ??= {})[who] ??= { met: 0, missed: [], unresolved: [], exact: true });
        tallyVerdict(p, v, `${bytes} B ${f(ci.median, 3)} [${f(ci.lo, 3)}–${f(ci.hi, 3)}]`);
        p.exact &&= ci.exact;
        (p.medians ??= []).push(ci.median);
      }
    }
    if (bytes < MiB && c.clabBUs.length) (summary.clabB[op] ??= []).push([median(c.clabBUs) / us[1], us[0] / median(c.clabBUs)]);
    const [sc, sp] = bytes >= MiB ? [spread(c.clabBus), spread(c.peerBus)] : [spread(c.clabUs), spread(c.peerUs)];
    summary.spreads.push({ what: `${op} ${bytes}`, clab: sc, peer: sp });
    // A size only one side timed (nccl-tests' 0 B all_gather, clab's 8 B one) has no ratio: said apart.
    if (!Number.isFinite(us[0]) || !Number.isFinite(us[1]))
      summary.oneSided.push(`${op} ${bytes} B (${Number.isFinite(us[0]) ? 'clab' : 'nccl-tests'} only)`);
    else if (bytes >= MiB && !(busRatio >= 0.98)) summary.busLow.push(`${op} ${bytes} B: ${f(busRatio, 3)}`);
    else if (bytes < MiB) {
      summary.smallRatios.push(usRatio);
      if (usRatio > 1.0) (summary.aboveOne[op] ??= []).push(`${bytes} B ${f(usRatio, 3)}`);
      if (bestRatio > 1.0) (summary.aboveOneBest[op] ??= []).push(`${bytes} B ${f(bestRatio, 3)}`);
      if (usRatio > 1.05) summary.timeHigh.push(`${op} ${bytes} B: ${f(usRatio, 3)}`);
    }
    console.log(
      `${(op + (c.inPlace ? ' (in place)' : '')).padEnd(24)} ${String(bytes).padStart(11)} ${f(bus[0]).padStart(10)} ${f(bus[1]).padStart(10)} ${f(busRatio, 3).padStart(6)}  ${f(us[0]).padStart(9)} ${f(us[1]).padStart(9)} ${f(usRatio, 3).padStart(6)} ${f(bestRatio, 3).padStart(6)}  ${f(sc * 100, 1).padStart(6)}% ${f(sp * 100, 1).padStart(6)}%  ${c.wrong.join(',')}`,
    );
  }
}
if (launches.graph || Number(process.env.GRAPH) > 0)
  console.log(
    `\nlaunch: clab graph-launched ${launches.graph} of ${launches.steps} sweep steps over the runs (each size's iterations captured in one CUDA graph, one replay timed); nccl-tests ${Number(process.env.GRAPH) > 0 ? `-G ${process.env.GRAPH} (that many replays of its graph of the same iterations)` : 'host-launched (GRAPH unset)'}`,
  );
const wall = [median(walls.clab), median(walls.peer)];
console.log(
  `\nwhole sweep, process start to exit (8 B … 1 GiB): clab ${f(wall[0])} s (runs ${walls.clab.map((x) => f(x)).join(', ')}), nccl-tests ${f(wall[1])} s summed over its processes (one per op) (runs ${walls.peer.map((x) => f(x)).join(', ')}); ratio ${f(wall[0] / wall[1], 3)} (target ≤ 0.15, issue 39)`,
);
if (walls.answer.some(Number.isFinite)) {
  const a = median(walls.answer.filter(Number.isFinite));
  console.log(
    `time to answer (each clab run's \`time to answer:\` line: from its start to the answer printed, before its ranks' processes end): clab ${f(a)} s (runs ${walls.answer.map((x) => f(x)).join(', ')}); ratio to nccl-tests' ${f(wall[1])} s ${f(a / wall[1], 3)} (issue 39, part 2, reads its targets from that line)`,
  );
}
if (walls.clabB.length) {
  const b = median(walls.clabB);
  console.log(
    `whole sweep, clab-b (${process.env.CLAB_B_ENV || process.env.CLAB_B_NODE || 'the second clab'}): ${f(b)} s (runs ${walls.clabB.map((x) => f(x)).join(', ')}); ratio ${f(b / wall[1], 3)}; clab / clab-b ${f(wall[0] / b, 3)}`,
  );
}
console.log(
  `busbw ≥ 1 MiB: ${summary.busLow.length ? `${summary.busLow.length} below 0.98: ${some(summary.busLow)}` : 'every size ≥ 0.98 of nccl-tests'}`,
);
const small = summary.smallRatios.length;
console.log(
  `time per op < 1 MiB: ${summary.timeHigh.length ? `${summary.timeHigh.length} of ${small} above 1.05: ${some(summary.timeHigh)}` : `every size of ${small} ≤ 1.05 × nccl-tests`}; median ratio ${f(median(summary.smallRatios), 3)}`,
);
// Issue 27's target: every send, sendrecv and all_reduce size below 1 MiB at or under nccl-tests' time.
for (const op of ['all_reduce', 'send', 'sendrecv'].filter((o) => figures[o])) {
  const above = summary.aboveOne[op] ?? [];
  console.log(`${op} < 1 MiB, time per op > 1.0 × nccl-tests: ${above.length ? `${above.length}: ${some(above)}` : 'none'}`);
  const aboveBest = summary.aboveOneBest[op] ?? [];
  console.log(
    `${op} < 1 MiB, best of the repeats > 1.0 × nccl-tests' best: ${aboveBest.length ? `${aboveBest.length}: ${some(aboveBest)}` : 'none'}`,
  );
}
/** A list of ratios in one phrase: its range, median, and how many lie above 1.0. */
const range = (v) =>
  `${f(Math.min(...v), 3)}–${f(Math.max(...v), 3)}, median ${f(median(v), 3)}, ${v.filter((x) => x > 1.0).length} of ${v.length} above 1.0`;
// The A/A pair: nccl-tests' second run each repeat against its first, as clab's is set against it.
for (const [op, ratios] of Object.entries(summary.aa)) {
  const v = ratios.filter((x) => Number.isFinite(x));
  if (v.length) console.log(`A/A, nccl-tests against itself, ${op} < 1 MiB (medians over the repeats): ${range(v)}`);
}
// CLAB_B_ENV / CLAB_B_NODE: clab with that environment or those Node options (clab-b) against nccl-tests, and clab against clab-b.
for (const [op, pairs] of Object.entries(summary.clabB)) {
  const bPeer = pairs.map((p) => p[0]).filter((x) => Number.isFinite(x));
  const clabOverB = pairs.map((p) => p[1]).filter((x) => Number.isFinite(x));
  if (bPeer.length)
    console.log(
      `clab-b (${[process.env.CLAB_B_ENV, process.env.CLAB_B_NODE && `node ${process.env.CLAB_B_NODE}`].filter(Boolean).join(', ') || 'CLAB_B_ENV'}), ${op} < 1 MiB, clab-b / nccl-tests: ${range(bPeer)}; clab / clab-b: ${range(clabOverB)}`,
    );
}
for (const [op, v] of Object.entries(smallIssue))
  console.log(
    `clab's host issuing ${op} < 1 MiB, issue / loop time over ${v.length} rank loops: median ${f(median(v), 3)}, ${v.filter((x) => x > 0.9).length} above 0.9 (bound by issuing)`,
  );
for (const [op, by] of Object.entries(summary.paired))
  for (const [who, p] of Object.entries(by))
    console.log(
      `paired ${{ clab: 'clab / nccl-tests', 'A/A': 'nccl-tests (A/A) / nccl-tests', 'clab-b': 'clab-b / nccl-tests' }[who] ?? who} per repeat, ${op} < 1 MiB (target ≤ 1.0; median [95 % interval]): median of the sizes' medians ${f(median(p.medians), 3)}; ${p.met} met, ${p.missed.length} missed${p.missed.length ? ` (${some(p.missed)})` : ''}, ${p.unresolved.length} unresolved${p.unresolved.length ? ` (${some(p.unresolved)})` : ''}${p.exact ? '' : ' — fewer than 6 repeats: no 95 % interval, the whole range instead'}`,
    );
if (summary.oneSided.length) console.log(`sizes one side alone timed (no ratio): ${some(summary.oneSided)}`);
const worst = summary.spreads.sort((a, b) => b.clab - a.clab).slice(0, 5);
console.log(
  `spread over ${repeats} repeats (busbw ≥ 1 MiB, time below): clab's largest ${worst.map((w) => `${w.what} ${f(w.clab * 100, 1)}%`).join(', ')}; over 5 %: clab ${summary.spreads.filter((s) => s.clab > 0.05).length}, nccl-tests ${summary.spreads.filter((s) => s.peer > 0.05).length} of ${summary.spreads.length}`,
);
console.log(
  `clab steps ≥ 1 MiB whose loop took over 1.25 × its iterations' median and 5 µs more per op: ${slowLoops.length ? some(slowLoops) : 'none'}`,
);
if (issuing.loops)
  console.log(
    `clab's host issuing the loops: ${issuing.loops} loops (ranks × steps × runs), ${issuing.faulted} took page faults (${issuing.faults} in all), blocked ${issuing.blocked}×, preempted ${issuing.preempted}×; at ≥ 1 MiB issuing took at most ${(100 * issuing.slowestShare).toFixed(1)} % of its loop`,
  );
