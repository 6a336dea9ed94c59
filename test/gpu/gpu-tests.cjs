#!/usr/bin/env node
// The GPU tests (test/gpu/run.sh runs this on the GPU machine; never part of CI): the shipped
// scenarios run through `clab run --backend nccl` at every world from 1 to the GPU count (and again
// on a second NCCL when one is named), test scenarios made here on 1 and 2 GPUs (symmetric memory
// and zero-SM collectives on 2 and 4), and every check
// must pass; failure modes (too little GPU memory, a hang, an NCCL error) must end with a clear
// error and no process left on a GPU. Prints PASS/FAIL/SKIP per test and a summary line.
//
//   node test/gpu/gpu-tests.cjs [--only NAME-SUBSTRING] [--nccl /path/libnccl.so.2]
// Environment: WORK (where scenarios, logs and records go; default a fresh /tmp dir);
// CLAB_NCCL_SECOND=/path/libnccl.so.2 names the second NCCL when --nccl does not;
// CLAB_TEST_BACKEND=cpu runs the scenario tests on cpu ranks (to try the scenarios without a GPU).
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const { ncclLibraries, scenarioRuns } = require('./worlds.cjs');
const { readRecordFile } = require('../../bench/records.cjs');

const root = path.resolve(__dirname, '../..');
const work = process.env.WORK || fs.mkdtempSync(path.join(os.tmpdir(), 'clab-gpu-'));
fs.mkdirSync(work, { recursive: true });
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
/** --only matches names with spaces or underscores alike ("overlap on 2 GPUs" = "overlap_on_2_GPUs"). */
const selected = (name) => !only || name.replace(/_/g, ' ').includes(only.replace(/_/g, ' '));
const results = [];
const GiB = 2 ** 30;
const BACKEND = process.env.CLAB_TEST_BACKEND || 'nccl';

function clab(args, options = {}) {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/clab.cjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 540_000,
    env: { ...process.env, ...options.env },
    maxBuffer: 1 << 28,
  });
  return { code: r.status, out: r.stdout ?? '', err: r.stderr ?? '' };
}

function gpuCount() {
  const r = spawnSync('nvidia-smi', ['-L'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.split('\n').filter((l) => l.startsWith('GPU ')).length : 0;
}

/** Processes holding a GPU (nvidia-smi --query-compute-apps), as "pid name" lines. */
function gpuProcesses() {
  const r = spawnSync('nvidia-smi', ['--query-compute-apps=pid,process_name', '--format=csv,noheader'], { encoding: 'utf8' });
  return r.status === 0
    ? r.stdout
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
    : [];
}

/** NCCL's shared-memory segments in /dev/shm (src/addon/nccl-segments.ts): clab's ranks must leave none. */
function ncclSegments() {
  try {
    return fs.readdirSync('/dev/shm').filter((f) => /^nccl-[A-Za-z0-9]{6}$/.test(f));
  } catch {
    return [];
  }
}

function record(name, ok, detail, skipped = false) {
  results.push({ name, ok, skipped });
  console.log(`${skipped ? 'SKIP' : ok ? 'PASS' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`);
}

function writeScenario(name, scenario) {
  const file = path.join(work, `${name}.scenario.json`);
  fs.writeFileSync(file, JSON.stringify({ version: 1, name, ...scenario }, null, 1));
  return file;
}

/** Runs a scenario on the nccl backend; returns the record (or null) and the output. */
function run(name, file, ranks, options = {}) {
  const out = path.join(work, `${name}.run.json`);
  const t0 = Date.now();
  const nccl = options.nccl ? ['--nccl', options.nccl] : [];
  const r = clab(['run', file, '--backend', BACKEND, ...(ranks ? ['--ranks', String(ranks)] : []), ...nccl, '--out', out], options);
  fs.writeFileSync(path.join(work, `${name}.log`), `${r.out}\n--- stderr ---\n${r.err}`);
  const rec = fs.existsSync(out) ? readRecordFile(out) : null;
  return { rec, r, seconds: (Date.now() - t0) / 1000 };
}

/** Every check passed on the nccl backend: the usual verdict of a scenario test. */
function expectPassed(name, file, ranks, extra = () => null, options = {}) {
  if (!selected(name)) return;
  const { rec, r, seconds } = run(name, file, ranks, options);
  if (!rec) return record(name, false, `no run record (exit ${r.code}): ${(r.err || r.out).trim().split('\n').slice(-3).join(' | ')}`);
  const wrong = rec.steps.reduce((s, x) => s + x.wrong, 0);
  // A variant the loaded NCCL cannot run (zero-SM before 2.29) is refused, said so, and the run goes on.
  const refused = new Set((rec.compares ?? []).flatMap((c) => c.variants.filter((v) => v.refused).map((v) => `${c.index}/${v.name}`)));
  const ofRefused = (s) => s.origin.kind === 'compare' && refused.has(`${s.origin.compare}/${s.origin.variant}`);
  // So is a step every rank refused for its NCCL (windows before 2.27, zero SM before 2.29).
  // A pair the scenario breaks on purpose (its `faults`) must fail, and only it: the run then fails.
  const faults = injectedFaults(file);
  const ofFault = (s) => s.origin.kind === 'pairs' && faults.has(`${s.origin.from}→${s.origin.to}`);
  const bad = rec.steps.filter((s) => !['pass', 'none'].includes(s.verdict) && !ofRefused(s) && !refusedFor(s) && !ofFault(s));
  const checked = rec.steps.filter((s) => s.verdict === 'pass').length;
  const problems = [];
  if (rec.environment.backend !== BACKEND) problems.push(`ran on ${rec.environment.backend}`);
  // The record's GPUs, as rank 0 read them once it joined (or a probe, where it could not): each named.
  if (BACKEND === 'nccl' && !(rec.environment.gpus.length > 0 && rec.environment.gpus.every((g) => g.name && g.busId)))
    problems.push(`the record names no GPU: ${JSON.stringify(rec.environment.gpus)}`);
  const faulted = rec.steps.filter(ofFault);
  if (faults.size) {
    const passedAnyway = faulted.filter((s) => s.verdict === 'pass').map((s) => s.label);
    if (passedAnyway.length) problems.push(`a pair broken on purpose passed: ${passedAnyway.join(', ')}`);
    if (rec.status !== 'failed' || rec.error)
      problems.push(`status ${rec.status}${rec.error ? `: ${rec.error.message}` : ''}, expected failed by its broken pairs alone`);
  } else if (rec.status !== 'passed') problems.push(`status ${rec.status}${rec.error ? `: ${rec.error.message}` : ''}`);
  if (bad.length)
    problems.push(
      `${bad.length} steps not passed, first: ${bad[0].label} (${bad[0].verdict}, ${bad[0].wrong} wrong${bad[0].ranks[0]?.mismatches?.[0] ? `, e.g. [${bad[0].ranks[0].mismatches[0].index}] expected ${bad[0].ranks[0].mismatches[0].expected} got ${bad[0].ranks[0].mismatches[0].actual}` : ''})`,
    );
  const more = extra(rec);
  if (more) problems.push(more);
  record(
    name,
    problems.length === 0,
    problems.length ? problems.join('; ') : `${rec.steps.length} steps, ${checked} checked, #wrong ${wrong}, ${seconds.toFixed(1)} s`,
  );
}

/** The pairs a scenario file breaks on purpose (`faults` of its pairs steps), as "from→to". */
function injectedFaults(file) {
  try {
    const scenario = JSON.parse(fs.readFileSync(file, 'utf8'));
    return new Set((scenario.steps ?? []).flatMap((s) => (s.faults ?? []).map((f) => `${f.from}→${f.to}`)));
  } catch {
    return new Set();
  }
}

/** The record says the ranks loaded `nccl` (--nccl): its file and the version NCCL gave; null when so. */
function loadedNamed(rec, nccl) {
  const lib = rec.environment.ncclLibrary;
  if (BACKEND === 'cpu') return null; // cpu ranks load no NCCL
  if (!lib || lib.chosenBy !== 'option' || lib.path !== fs.realpathSync(nccl)) return `the record's NCCL is ${JSON.stringify(lib)}`;
  console.log(`    NCCL ${lib.version} from ${lib.path} (sha256 ${lib.sha256?.slice(0, 12)}…)`);
  return null;
}

/** Runs a scenario file with `ranks` ranks (on the NCCL `nccl` names, if any), skipping worlds it cannot have. */
function shippedScenario(file, ranks, nccl) {
  const name = `${path.basename(file, '.scenario.json')} on ${ranks} GPU${ranks > 1 ? 's' : ''}${nccl ? ' with the second NCCL' : ''}`;
  if (!selected(name)) return;
  const v = clab(['validate', file, '--ranks', String(ranks)]);
  if (v.code !== 0) return record(name, true, `not runnable on ${ranks} rank(s): ${v.err.trim().split('\n')[0]}`, true);
  if (BACKEND === 'cpu' && /"launch":\s*"graph"/.test(fs.readFileSync(file, 'utf8')))
    return record(name, true, 'graph-launched steps need the nccl backend', true);
  expectPassed(
    name.replace(/ /g, '_'),
    file,
    ranks,
    (rec) => {
      const notLoaded = nccl ? loadedNamed(rec, nccl) : null;
      if (notLoaded) return notLoaded;
      for (const c of rec.compares ?? []) {
        const fixed = (x, d) => (typeof x === 'number' ? x.toFixed(d) : 'n/a');
        const parts = c.variants.map(
          (v) => `${v.name} ${v.refused ? 'refused' : `${fixed(v.durationUs, 0)} µs (×${fixed(v.speedup, 2)})`}`,
        );
        const ideal =
          typeof c.computeUs === 'number'
            ? `; comm ${fixed(c.commUs, 0)} µs + compute ${fixed(c.computeUs, 0)} µs, ideal ×${fixed(c.idealSpeedup, 2)}`
            : '';
        console.log(`    ${c.label}: ${parts.join(', ')}${ideal}`);
        if (!c.variants.every((v) => v.refused || v.durationUs > 0)) return `compare ${c.label} has no durations`;
      }
      return null;
    },
    { nccl },
  );
}

// ---- scenarios made here ---------------------------------------------------------------------

const DTYPES = [
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
];
const REDOPS = ['sum', 'prod', 'min', 'max', 'avg'];
const COLLECTIVES = [
  'broadcast',
  'all_reduce',
  'reduce',
  'all_gather',
  'all_gather_into_tensor',
  'gather',
  'scatter',
  'reduce_scatter',
  'reduce_scatter_tensor',
  'all_to_all',
  'all_to_all_single',
];
const IN_PLACE = new Set([
  'broadcast',
  'all_reduce',
  'reduce',
  'all_gather',
  'all_gather_into_tensor',
  'gather',
  'scatter',
  'reduce_scatter',
  'reduce_scatter_tensor',
]);
const randomFor = (dtype, seed) => ({ kind: 'random', seed, min: 0, max: dtype.includes('int') ? 3 : 4 });

function dtypesAndRedops() {
  const steps = [];
  for (const dtype of DTYPES) {
    for (const redop of REDOPS) {
      for (const op of ['all_reduce', 'reduce', 'reduce_scatter_tensor']) {
        steps.push({ op, dtype, redop, count: 4800, root: 1, data: randomFor(dtype, steps.length) });
      }
    }
    for (const op of ['broadcast', 'all_gather_into_tensor', 'all_to_all_single', 'gather', 'scatter'])
      steps.push({ op, dtype, count: 4800, root: 1, data: randomFor(dtype, steps.length) });
    steps.push({ op: 'send', from: 1, to: 0, dtype, count: 4801, data: randomFor(dtype, steps.length) });
  }
  return { world: { ranks: 2 }, defaults: { warmup: 1, iters: 2 }, steps };
}

function everyForm() {
  const steps = [];
  for (const op of COLLECTIVES) {
    for (const inPlace of IN_PLACE.has(op) ? [false, true] : [false]) {
      steps.push({
        op,
        inPlace,
        count: 12 * 4096,
        root: 1,
        dtype: steps.length % 2 ? 'bfloat16' : 'float32',
        data: { kind: 'arange_rank', start: 1, rankStride: 100 },
      });
    }
  }
  steps.push(
    { op: 'send', from: 0, to: 1, count: 100000, data: { kind: 'random', seed: 5 } },
    { op: 'send', label: 'isend 1→0', from: 1, to: 0, count: 100000, async: true, id: 'p2p', stream: 'comm' },
    { op: 'all_reduce', label: 'async all_reduce on another stream', count: 65536, async: true, id: 'ar', stream: 'side' },
    { op: 'compute', label: 'matmul meanwhile', m: 1024, n: 1024, k: 1024, dtype: 'float16', stream: 'compute' },
    { op: 'wait', id: 'p2p' },
    { op: 'wait', id: 'ar' },
    {
      op: 'group',
      label: 'exchange + all_reduce in one group',
      steps: [
        { op: 'send', from: 0, to: 1, count: 5000, data: { kind: 'constant', value: 5 } },
        { op: 'send', from: 1, to: 0, count: 5000, data: { kind: 'constant', value: 6 } },
        { op: 'all_reduce', count: 5000, inPlace: false },
      ],
    },
    { op: 'barrier', iters: 10 },
    { op: 'compute', m: 2048, n: 2048, k: 2048, dtype: 'float16', iters: 5 },
    { op: 'compute', m: 2048, n: 2048, k: 2048, dtype: 'bfloat16', iters: 5 },
    { op: 'compute', m: 1024, n: 1024, k: 1024, dtype: 'float32', iters: 5 },
    { op: 'all_reduce', label: 'zero elements', count: 0 },
    { op: 'broadcast_object', root: 1, objects: [{ big: 'x'.repeat(5000) }] },
    { op: 'all_gather_object' },
    { op: 'gather_object', root: 1 },
    { op: 'scatter_object', root: 1, objects: ['a', { b: [1, 2] }] },
  );
  return { world: { ranks: 2 }, defaults: { warmup: 2, iters: 3 }, steps };
}

function sweeps() {
  const data = { kind: 'random', seed: 11, min: 0, max: 8 };
  const steps = COLLECTIVES.map((collective) => ({ op: 'sweep', collective, minBytes: 8, maxBytes: '1GiB', factor: 2, root: 1, data }));
  steps.push({ op: 'sweep', collective: 'send', from: 0, to: 1, minBytes: 8, maxBytes: '1GiB', factor: 2, data });
  return { world: { ranks: 2 }, defaults: { dtype: 'float32', warmup: 1, iters: 3 }, steps };
}

/**
 * Graph launch ("launch": "graph"): sweeps of a collective, of a both-ways exchange (a group of
 * sends and receives) and of a gather, and one call timed once, each captured in a CUDA graph and
 * replayed; every output checked, every rank's loop a graph's replay with a positive time per op.
 * Beside them the same all_reduce sweep host-launched, printed side by side for reading.
 */
function graphLaunch() {
  const name = 'graph_launched_sweeps_on_2_GPUs';
  if (!selected(name)) return;
  const data = { kind: 'random', seed: 3, min: 0, max: 8 };
  const sweep = (collective, maxBytes, launch) => ({ op: 'sweep', collective, minBytes: 8, maxBytes, data, launch });
  const file = writeScenario('graph-launch', {
    world: { ranks: 2 },
    backend: 'nccl',
    defaults: { dtype: 'float32', warmup: 2, iters: 20 },
    steps: [
      sweep('all_reduce', '1MiB', 'graph'),
      sweep('sendrecv', '64KiB', 'graph'),
      sweep('all_gather_into_tensor', '64KiB', 'graph'),
      { op: 'reduce_scatter_tensor', label: 'one graph-launched call', count: 1 << 20, iters: 1, launch: 'graph', data },
      sweep('all_reduce', '1MiB', 'host'),
    ],
  });
  expectPassed(name, file, 2, (rec) => {
    const graphed = rec.steps.filter((s) => rec.plan.steps[s.index]?.launch === 'graph');
    const host = rec.steps.filter((s) => s.origin.kind === 'sweep' && s.origin.sweep === 3); // the plan's fourth sweep
    const problems = [];
    if (graphed.length !== rec.plan.steps.filter((s) => s.launch === 'graph').length) problems.push('a graph-launched step has no record');
    for (const s of graphed) {
      const notGraph = s.ranks.filter((r) => r.launch !== 'graph' || !(r.loopUs > 0));
      if (notGraph.length)
        problems.push(
          `${s.label}: rank ${notGraph[0].rank} reports no graph replay (${JSON.stringify(notGraph[0].launch)}, loopUs ${notGraph[0].loopUs})`,
        );
      if (!(s.timing?.perOp > 0)) problems.push(`${s.label}: time per op ${s.timing?.perOp}`);
      if (s.ranks.length !== 2) problems.push(`${s.label}: ${s.ranks.length} ranks reported`);
    }
    if (host.length !== 18 || host.some((s) => s.ranks.some((r) => r.launch !== undefined)))
      problems.push(`the host-launched sweep: ${host.length} steps, or one says it was graph-launched`);
    const graphAllReduce = new Map(graphed.filter((s) => s.origin.kind === 'sweep' && s.origin.sweep === 0).map((s) => [s.bytes, s]));
    console.log(
      `    all_reduce µs per op, host / graph: ${host.map((s) => `${s.bytes} B ${s.timing?.perOp?.toFixed(2)} / ${graphAllReduce.get(s.bytes)?.timing?.perOp?.toFixed(2)}`).join(', ')}`,
    );
    return problems.length ? problems.slice(0, 3).join('; ') : null;
  });
}

/** The data kernels made and checked the large tensors (the rank log's line), on every rank. */
function dataOnGpu(rec) {
  const lines = rec.logs.filter((l) => l.text.includes('joined the nccl communicator')).map((l) => l.text);
  const onGpu = lines.filter((t) => t.includes('filled and checked by the backend on the GPU'));
  if (lines.length && onGpu.length === lines.length) return null;
  return `data not made on the GPU: ${lines.map((t) => t.slice(t.indexOf(';') + 2)).join(' | ') || 'no join line'}`;
}

/**
 * registerBuffers: every tensor from ncclMemAlloc, registered with the communicator; every
 * collective (and, on 2 GPUs, sends both ways, in a group and async beside a GEMM) still checks.
 */
function registeredBuffers(ranks) {
  const steps = COLLECTIVES.flatMap((op, i) =>
    [4096, 1 << 22].map((count) => ({
      op,
      count,
      root: ranks - 1,
      dtype: i % 2 ? 'bfloat16' : 'float32',
      data: { kind: 'random', seed: i, min: 0, max: 4 },
    })),
  );
  if (ranks > 1) {
    steps.push(
      { op: 'send', from: 0, to: 1, count: 1 << 24, data: { kind: 'random', seed: 9 } },
      { op: 'send', from: 1, to: 0, count: 100000 },
      { op: 'send', label: 'isend 0→1 beside a GEMM', from: 0, to: 1, count: 1 << 24, async: true, id: 'p2p', stream: 'comm' },
      { op: 'compute', m: 4096, n: 4096, k: 4096, dtype: 'float16', ranks: [1] },
      { op: 'wait', id: 'p2p' },
      {
        op: 'group',
        label: 'exchange',
        steps: [
          { op: 'send', from: 0, to: 1, count: 5000 },
          { op: 'send', from: 1, to: 0, count: 5000 },
        ],
      },
    );
  }
  const name = `registered_buffers_on_${ranks}_GPU${ranks > 1 ? 's' : ''}`;
  expectPassed(
    name,
    writeScenario(`registered-${ranks}`, { world: { ranks }, registerBuffers: true, defaults: { warmup: 1, iters: 3 }, steps }),
    ranks,
    (rec) => {
      if (BACKEND === 'cpu') return null; // cpu ranks ignore registerBuffers
      const joins = rec.logs.filter((l) => l.text.includes('joined the nccl communicator'));
      return joins.length === ranks && joins.every((l) => l.text.includes('registered with it'))
        ? dataOnGpu(rec)
        : `not every rank says its buffers are registered: ${joins.map((l) => l.text).join(' | ')}`;
    },
  );
}

/**
 * A matmul's smCount reaches cuBLAS (cublasSetSmCountTarget): on 33 SMs, a quarter of an H100's or
 * H200's, the same multiply takes well over 1.5 times as long as on all of them, and the last one
 * runs on all SMs again.
 */
function gemmSmCount() {
  const name = 'gemm_smCount_reaches_cuBLAS';
  if (!selected(name)) return;
  const mm = { op: 'compute', m: 8192, n: 8192, k: 4096, dtype: 'float16', warmup: 2, iters: 10 };
  const file = writeScenario('sm-count', { world: { ranks: 1 }, steps: [mm, { ...mm, smCount: 33 }, mm] });
  const { rec, r } = run(name, file, 1);
  if (!rec) return record(name, false, `no run record (exit ${r.code})`);
  const us = rec.steps.map((s) => s.timing?.median ?? NaN);
  const ok = rec.status === 'passed' && us[1] / us[0] > 1.5 && us[2] / us[0] < 1.1 && rec.steps[1].label.endsWith('on 33 SMs');
  record(
    name,
    ok,
    `median ${us.map((x) => x.toFixed(0)).join(' / ')} µs (all SMs, 33 SMs, all again): ×${(us[1] / us[0]).toFixed(2)}, ×${(us[2] / us[0]).toFixed(2)}`,
  );
}

/**
 * Ranks that reduce with different redops (a deliberate mistake NCCL does not catch): the data
 * kernels count the wrong elements and the host shows the first of them with their values.
 */
function wrongElementsFound() {
  const name = 'wrong_elements_found_on_the_GPU';
  if (!selected(name)) return;
  const file = writeScenario('mixed-redops', {
    world: { ranks: 2 },
    defaults: { warmup: 0, iters: 1 },
    steps: [
      {
        op: 'all_reduce',
        label: 'rank 1 takes max',
        count: 1 << 20,
        redop: 'sum',
        data: { kind: 'arange_rank', start: 1 },
        perRank: { 1: { redop: 'max' } },
        expect: 'failure',
      },
    ],
  });
  const { rec, r } = run(name, file, 2);
  if (!rec) return record(name, false, `no run record (exit ${r.code})`);
  const step = rec.steps[0];
  const shown = step?.ranks.flatMap((x) => x.mismatches ?? []) ?? [];
  const ok =
    step?.verdict === 'fail' && step.wrong > 0 && shown.length > 0 && shown.every((m) => m.expected !== m.actual) && !dataOnGpu(rec);
  record(
    name,
    ok,
    step
      ? `verdict ${step.verdict}, ${step.wrong} wrong of ${step.ranks.reduce((a, x) => a + x.checked, 0)}, first: ${shown
          .slice(0, 2)
          .map((m) => `[${m.index}] expected ${m.expected} got ${m.actual}`)
          .join(', ')}${dataOnGpu(rec) ? `; ${dataOnGpu(rec)}` : ''}`
      : 'no step',
  );
}

/** The sweeps of `rec`, each with its rows, by label. */
function sweepRows(rec) {
  return rec.plan.sweeps.map((sp) => ({
    label: sp.label,
    rows: rec.steps.filter((s) => s.origin.kind === 'sweep' && s.origin.sweep === sp.index),
  }));
}

/** Where every rank refused a step for its NCCL (windows before 2.27, zero SM before 2.29): its message, else null. */
const refusedFor = (step) =>
  step.ranks.length && step.ranks.every((r) => r.error?.code === 'CLAB_UNSUPPORTED' && / needs? NCCL \d/.test(r.error.message))
    ? step.ranks[0].error.message
    : null;

/** What a row ran on, from the record alone (shared/run/nccl/nccl-kernels.ts describes it the same way for people). */
function ranText(step) {
  const k = step.kernels;
  const ce = step.nccl?.copyEngine ?? 0;
  const names = k ? [...Object.keys(k.symmetric).map((n) => `sym ${n}`), ...Object.keys(k.other)] : [];
  return [ce ? `CE×${ce}` : null, ...names].filter(Boolean).join('+') || '-';
}

/**
 * scenarios/symmetric.scenario.json on `ranks` GPUs: every value right, and every row of both sweeps
 * names the kernel NCCL ran (NCCL's INFO lines), the windowed one a symmetric kernel at some size,
 * unless NCCL gave no window (said) or is older than 2.27 (refused, said: then a skip).
 */
function symmetricKernels(ranks) {
  const name = `symmetric_kernels_on_${ranks}_GPUs`;
  if (!selected(name)) return;
  const { rec, r } = run(name, path.join(root, 'scenarios', 'symmetric.scenario.json'), ranks);
  if (!rec) return record(name, false, `no run record (exit ${r.code}): ${(r.err || r.out).trim().split('\n').slice(-3).join(' | ')}`);
  const [plain, windows] = sweepRows(rec);
  for (const sw of [plain, windows]) console.log(`    ${sw.label.padEnd(18)} ${sw.rows.map((x) => `${x.bytes}:${ranText(x)}`).join(' ')}`);
  const wrong = rec.steps.reduce((a, s) => a + s.wrong, 0);
  const refused = windows.rows.map(refusedFor).find(Boolean);
  const notPassed = rec.steps.filter((s) => s.verdict !== 'pass' && !(refused && windows.rows.includes(s)));
  if (wrong || notPassed.length) return record(name, false, `#wrong ${wrong}, ${notPassed.length} steps not passed`);
  if (refused) return record(name, true, refused, true);
  if (BACKEND === 'cpu') return record(name, true, 'cpu ranks ignore registration');
  const rows = [...plain.rows, ...windows.rows];
  const problems = [];
  const unnamed = rows.filter((x) => !x.kernels || Object.keys(x.kernels.symmetric).length + Object.keys(x.kernels.other).length === 0);
  if (unnamed.length) problems.push(`${unnamed.length} of ${rows.length} sizes name no kernel (first ${unnamed[0].label})`);
  if (plain.rows.some((x) => x.kernels?.windows) || windows.rows.some((x) => x.kernels && !x.kernels.windows))
    problems.push('the record says windows for the wrong sweep');
  const declined = windows.rows.filter((x) => x.ranks.some((k) => k.windows?.declined > 0));
  if (declined.length) problems.push(`NCCL gave no window at ${declined.length} sizes (no symmetric memory support on these GPUs)`);
  else if (!windows.rows.some((x) => x.kernels && Object.keys(x.kernels.symmetric).length))
    problems.push('no size on windows ran a symmetric kernel');
  if (plain.rows.some((x) => x.kernels && Object.keys(x.kernels.symmetric).length))
    problems.push('a size on plain buffers ran a symmetric kernel');
  const symmetric = windows.rows.filter((x) => x.kernels && Object.keys(x.kernels.symmetric).length).length;
  record(
    name,
    problems.length === 0,
    problems.join('; ') || `${rows.length} sizes named, ${symmetric} of ${windows.rows.length} on windows symmetric, #wrong 0`,
  );
}

/**
 * scenarios/zero-sm.scenario.json on `ranks` GPUs: every value right, and where the loaded NCCL runs
 * CTA policy zero (2.29) the zero sweep's every size ran on copy engines (the profiler's CE events),
 * the default sweep's on none; refused with the version needed on an older NCCL (then a skip).
 */
function zeroSmCopyEngine(ranks) {
  const name = `zero_SM_copy_engine_on_${ranks}_GPUs`;
  if (!selected(name)) return;
  const file = path.join(root, 'scenarios', 'zero-sm.scenario.json');
  const { rec, r } = run(name, file, ranks);
  if (!rec) return record(name, false, `no run record (exit ${r.code}): ${(r.err || r.out).trim().split('\n').slice(-3).join(' | ')}`);
  const sweeps = sweepRows(rec);
  for (const sw of sweeps) console.log(`    ${sw.label.padEnd(24)} ${sw.rows.map((x) => `${x.bytes}:${ranText(x)}`).join(' ')}`);
  const wrong = rec.steps.reduce((a, s) => a + s.wrong, 0);
  const zero = sweeps.find((sw) => sw.label.startsWith('zero'));
  const refused = zero.rows.map(refusedFor).find(Boolean);
  const others = rec.steps.filter((s) => !zero.rows.includes(s) && s.verdict !== 'pass');
  if (wrong || others.length) return record(name, false, `#wrong ${wrong}, ${others.length} other steps not passed`);
  if (refused) return record(name, true, refused, true);
  if (BACKEND === 'cpu')
    return record(
      name,
      zero.rows.every((x) => x.verdict === 'pass'),
      'cpu ranks ignore ctaPolicy',
    );
  const problems = [];
  if (zero.rows.some((x) => x.verdict !== 'pass')) problems.push('a zero-SM size did not pass');
  const notCe = zero.rows.filter((x) => !(x.nccl?.copyEngine > 0 && x.nccl.copyEngine === x.nccl.seen));
  if (notCe.length) problems.push(`${notCe.length} zero-SM sizes not all on copy engines (first ${notCe[0].label}: ${ranText(notCe[0])})`);
  if (sweeps[0].rows.some((x) => x.nccl?.copyEngine)) problems.push('the default sweep ran on copy engines');
  record(name, problems.length === 0, problems.join('; ') || `${zero.rows.length} sizes on copy engines, #wrong 0`);
}

/**
 * The lab's NCCL plug-ins load only where a scenario asks to see inside NCCL ("insideNccl": true) or
 * CLAB_NCCL_PROFILER=1 forces them, never with CLAB_NCCL_PROFILER=0: a small all_reduce sweep on 2
 * GPUs records NCCL's choice at every size where they load, at none where they do not, and then
 * every rank's log says so once.
 */
function insideNcclOnlyWhereAsked() {
  const name = 'inside_NCCL_only_where_asked';
  if (!selected(name)) return;
  const sweep = { op: 'sweep', collective: 'all_reduce', minBytes: 8, maxBytes: '64KiB', warmup: 2, iters: 20 };
  const file = (insideNccl) =>
    writeScenario(`inside-nccl-${insideNccl}`, { world: { ranks: 2 }, backend: 'nccl', insideNccl, steps: [sweep] });
  const sides = [
    { side: 'not asked', file: file(false), forced: undefined, load: false },
    { side: 'asked', file: file(true), forced: undefined, load: true },
    { side: 'not asked, CLAB_NCCL_PROFILER=1', file: file(false), forced: '1', load: true },
    { side: 'asked, CLAB_NCCL_PROFILER=0', file: file(true), forced: '0', load: false },
  ];
  const problems = [];
  const seenAt = [];
  sides.forEach(({ side, file, forced, load }, i) => {
    // Unset where not forced: the lead's own CLAB_NCCL_PROFILER must not decide the default.
    const { rec, r } = run(`${name}-${i}`, file, 2, { env: { CLAB_NCCL_PROFILER: forced } });
    if (!rec) return problems.push(`${side}: no run record (exit ${r.code})`);
    const rows = rec.steps.filter((s) => s.origin.kind === 'sweep');
    const seen = rows.filter((s) => s.nccl).length;
    const said = rec.logs.filter((l) => l.text.startsWith("NCCL's algorithm, protocol and channels not recorded")).length;
    seenAt.push(`${side}: ${seen}/${rows.length}`);
    if (rec.status !== 'passed') problems.push(`${side}: status ${rec.status}`);
    if (load && seen !== rows.length) problems.push(`${side}: NCCL's choice at ${seen} of ${rows.length} sizes`);
    if (!load && seen) problems.push(`${side}: NCCL's choice at ${seen} sizes, the plug-ins left out`);
    if (said !== (load ? 0 : 2)) problems.push(`${side}: ${said} ranks said the plug-ins were left out`);
  });
  record(name, problems.length === 0, problems.join('; ') || `NCCL's choice at ${seenAt.join(', ')} sizes`);
}

/**
 * Steps of 4 MiB and more run one ahead on a GPU (src/worker/steps-ahead.ts): a sweep of every size
 * from 1 MiB to 32 MiB of all_reduce and send passes alike with and without (CLAB_STEPS_AHEAD=0),
 * each step reported once, in plan order; with CLAB_TRACE_JOBS=1 every op of every rank logs where
 * its host time went (how much the steps gain is the benches' to say: bench/gpu/sweep.sh).
 */
function stepsAhead() {
  const name = 'steps_run_ahead';
  if (!selected(name)) return;
  const sweep = (collective) => ({ op: 'sweep', collective, minBytes: '1MiB', maxBytes: '32MiB', warmup: 2, iters: 10 });
  const file = writeScenario('steps-ahead', { world: { ranks: 2 }, backend: 'nccl', steps: [sweep('all_reduce'), sweep('send')] });
  const problems = [];
  const verdicts = [];
  for (const [side, env] of [
    ['ahead', { CLAB_TRACE_JOBS: '1' }],
    ['not ahead', { CLAB_STEPS_AHEAD: '0' }],
  ]) {
    const { rec, r } = run(`${name}-${side.replace(' ', '-')}`, file, 2, { env });
    if (!rec) {
      problems.push(`${side}: no run record (exit ${r.code})`);
      continue;
    }
    if (rec.status !== 'passed') problems.push(`${side}: status ${rec.status}`);
    const order = rec.steps.map((x) => x.index);
    if (order.some((x, i) => x !== i)) problems.push(`${side}: steps reported out of order`);
    verdicts.push(rec.steps.map((x) => x.verdict).join(','));
    if (side !== 'ahead') continue;
    // One job line per op: each step's warm-up and timed run (send's check is its timed run's), on both ranks.
    const jobs = rec.logs.filter((l) => l.text.startsWith('[job] rank '));
    const per = rec.steps.length * 2 * 2;
    if (jobs.length < per) problems.push(`${jobs.length} job lines, ${per} expected at least`);
    if (jobs.some((l) => !/ staged \d+ ref \d+ .*copied \d+ us$/.test(l.text)))
      problems.push(`a job line without its phases: ${jobs[0]?.text}`);
  }
  if (verdicts.length === 2 && verdicts[0] !== verdicts[1]) problems.push('the verdicts differ with and without');
  record(
    name,
    problems.length === 0,
    problems.join('; ') || `${verdicts[0]?.split(',').length} steps passed alike with and without, every op traced`,
  );
}

/**
 * Iterations timed inside their loop (from 256 MiB, worker/iteration-events.ts; a kernel stamping
 * the GPU's clock before each, native/nccl/nccl_execute.cc): on both ranks the timed iterations lie
 * within the loop, one after another from its start to its end, each near the loop's time per op;
 * the 128 MiB step's iterations come from a second pass after its loop.
 */
function stampedLoops() {
  const name = 'iterations_timed_inside_their_loop';
  const file = writeScenario('stamped-loops', {
    world: { ranks: 2 },
    backend: 'nccl',
    defaults: { dtype: 'float32', warmup: 2, iters: 10 },
    steps: [{ op: 'sweep', collective: 'all_reduce', minBytes: '128MiB', maxBytes: '512MiB', factor: 2 }],
  });
  expectPassed(name, file, 2, (rec) => {
    const problems = [];
    const said = [];
    for (const s of rec.steps) {
      for (const rank of [0, 1]) {
        const of = (phase) =>
          rec.events.filter((e) => e.rank === rank && e.step === s.index && e.phase === phase).sort((a, b) => a.startNs - b.startNs);
        const [loop] = of('loop');
        const timed = of('timed');
        if (!loop || timed.length !== 10) {
          problems.push(`${s.label} rank ${rank}: ${loop ? 'a' : 'no'} loop, ${timed.length} timed iterations`);
          continue;
        }
        const inside = timed.filter((e) => e.startNs >= loop.startNs - 1000 && e.endNs <= loop.endNs + 1000).length;
        if (s.bytes < 256 * 2 ** 20) {
          if (inside !== 0) problems.push(`${s.label} rank ${rank}: ${inside} iterations inside its loop, a second pass expected`);
          continue;
        }
        const perOp = (loop.endNs - loop.startNs) / 10;
        const near = (a, b) => Math.abs(a - b) <= 1000; // ns: as the record keeps them
        const joined = timed.every((e, i) => near(e.startNs, i === 0 ? loop.startNs : timed[i - 1].endNs));
        const spans = timed.map((e) => (e.endNs - e.startNs) / perOp);
        if (inside !== 10 || !joined || !near(timed[9].endNs, loop.endNs))
          problems.push(`${s.label} rank ${rank}: iterations not one after another from the loop's start to its end (${inside} inside)`);
        if (spans.some((x) => x < 0.8 || x > 1.25))
          problems.push(`${s.label} rank ${rank}: an iteration of ${spans.map((x) => x.toFixed(3)).join(', ')} × the time per op`);
        if (rank === 0) said.push(`${s.label}: ${spans.map((x) => x.toFixed(3)).join(' ')}`);
      }
    }
    if (said.length) console.log(`    iterations over the loop's time per op, rank 0: ${said.join('; ')}`);
    return problems.length ? problems.slice(0, 3).join('; ') : null;
  });
}

// ---- failure modes -------------------------------------------------------------------------------

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Another process takes all but ~1.5 GiB of GPU 0; a 2 GiB all_reduce must be refused up front. */
async function outOfMemory() {
  const name = 'too little GPU memory';
  if (!selected(name)) return;
  const hog = spawn(
    'python3',
    [
      '-c',
      [
        'import torch, sys, time',
        'free, total = torch.cuda.mem_get_info(0)',
        'x = torch.empty(free - (3 << 29), dtype=torch.uint8, device="cuda:0")',
        'print("READY", flush=True)',
        'time.sleep(600)',
      ].join('\n'),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let ready = false;
  hog.stdout.on('data', (d) => {
    if (String(d).includes('READY')) ready = true;
  });
  for (let i = 0; i < 600 && !ready && hog.exitCode === null; i++) await sleep(100);
  if (!ready) {
    hog.kill('SIGKILL');
    return record(name, false, 'the memory hog (python3 + torch) did not start');
  }
  try {
    const file = writeScenario('oom', {
      world: { ranks: 1 },
      steps: [
        { op: 'all_reduce', count: 3 },
        { op: 'all_reduce', count: 536870912, data: { kind: 'constant', value: 1 } },
      ],
    });
    const { rec } = run('oom', file, 1);
    const e = rec?.error;
    const ok =
      e &&
      e.code === 'CLAB_OUT_OF_MEMORY' &&
      e.step === 1 &&
      /cannot allocate 2147483648 bytes .* GPU 0 \(rank 0\): \d+ bytes .* free/.test(e.message) &&
      rec.steps[0].verdict === 'pass';
    record(name, Boolean(ok), e ? `${e.code}: ${e.message}` : 'no error recorded');
  } finally {
    hog.kill('SIGKILL');
    await new Promise((r) => (hog.exitCode !== null ? r() : hog.on('exit', r)));
  }
}

/** A step that overruns its timeout: the watchdog aborts the ranks; none may hold a GPU afterwards. */
function hangIsEnded() {
  const name = 'timeout ends the ranks and frees the GPUs';
  if (!selected(name)) return;
  const file = writeScenario('hang', {
    world: { ranks: 2 },
    steps: [
      { op: 'all_reduce', count: 3 },
      { op: 'all_reduce', count: 64 * 1024 * 1024, warmup: 0, iters: 100000, timeoutMs: 2000 },
    ],
  });
  const t0 = Date.now();
  const { rec } = run('hang', file, 2);
  const seconds = (Date.now() - t0) / 1000;
  const left = gpuProcesses();
  const e = rec?.error;
  const ok = e && e.code === 'CLAB_TIMEOUT' && e.step === 1 && left.length === 0 && rec.steps[0].verdict === 'pass';
  record(
    name,
    Boolean(ok),
    `${e ? `${e.code}: ${e.message}` : 'no error recorded'}; ended after ${seconds.toFixed(1)} s; GPU processes left: ${left.length ? left.join(', ') : 'none'}`,
  );
}

function ncclDebugCaptured() {
  const name = 'NCCL_DEBUG output reaches the run log';
  if (!selected(name)) return;
  const file = writeScenario('debug', { world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 1024 }] });
  const { rec } = run('debug', file, 2, { env: { NCCL_DEBUG: 'INFO' } });
  const lines = (rec?.logs ?? []).filter((l) => l.rank !== null && /NCCL INFO/.test(l.text));
  const ranks = new Set(lines.map((l) => l.rank));
  record(
    name,
    rec?.status === 'passed' && ranks.size === 2,
    `${lines.length} NCCL INFO lines from ranks ${[...ranks].join(', ')}, e.g. "${lines[0]?.text.slice(0, 100) ?? ''}"`,
  );
}

/**
 * NCCL refuses a setting (NCCL_NET naming no network) while the ranks join: the run ends with the
 * result's name, NCCL's own words (ncclGetLastError), the rank's NCCL WARN lines and a hint.
 */
function ncclErrorExplained() {
  const name = "an NCCL error carries its name, NCCL's words, the WARN lines and a hint";
  if (!selected(name)) return;
  const file = writeScenario('nccl-error', { world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 1024 }] });
  const { rec } = run('nccl-error', file, 2, { env: { NCCL_NET: 'clab-no-such-network' } });
  const e = rec?.error;
  const left = gpuProcesses();
  const problems = [];
  if (!e) problems.push('no error recorded');
  else {
    if (e.code !== 'NCCL_ERROR_INVALID_USAGE' || e.step !== null) problems.push(`code ${e.code}, step ${e.step}`);
    if (
      !/^rank \d failed while starting: ncclCommInitRank failed: NCCL_ERROR_INVALID_USAGE \(.+\); NCCL's last warning: \S/.test(e.message)
    )
      problems.push('no result name and last warning in the first line');
    if (!/\n {2}rank \d's last NCCL WARN lines?:\n {4}.* NCCL WARN /.test(e.message)) problems.push('no NCCL WARN lines');
    if (!/\n {2}hint: the usual causes/.test(e.message)) problems.push('no hint');
  }
  if (left.length) problems.push(`GPU processes left: ${left.join(', ')}`);
  record(name, problems.length === 0, `${problems.length ? `${problems.join('; ')} — ` : ''}${e ? `${e.code}: ${e.message}` : ''}`);
}

/**
 * Pairs on their own communicators: one pairs step hangs 1→0 on purpose (a receive that never
 * completes on the GPU, ended by ncclCommAbort at the pair's timeout), the next fails 0→1 on
 * purpose; the other direction of each is measured, with its link (NV#), NCCL's transport and a
 * copy-engine figure, and no process is left on a GPU. Prints the matrices.
 */
function pairsIsolated() {
  const name = 'pairs: a hung and a failed pair are marked and the other directions measured';
  if (!selected(name)) return;
  const common = { op: 'pairs', bytes: '64MiB', timeoutMs: 4000, warmup: 2, iters: 10 };
  const file = writeScenario('pairs-faults', {
    world: { ranks: 2 },
    steps: [
      { ...common, faults: [{ from: 1, to: 0, kind: 'hang' }] },
      { ...common, faults: [{ from: 0, to: 1, kind: 'error' }] },
    ],
  });
  const t0 = Date.now();
  const { rec, r } = run('pairs-faults', file, 2);
  const seconds = (Date.now() - t0) / 1000;
  for (const line of r.out.split('\n').filter((l) => l.startsWith('#') || l.startsWith(' '))) console.log(`    ${line}`);
  const left = gpuProcesses();
  const problems = [];
  const cell = (pairs, from, to, measure) =>
    rec?.steps.find(
      (s) =>
        s.origin.kind === 'pairs' &&
        s.origin.pairs === pairs &&
        s.origin.from === from &&
        s.origin.to === to &&
        (s.origin.measure ?? 'bandwidth') === measure,
    );
  if (!rec) problems.push(`no run record (exit ${r.code})`);
  else {
    if (rec.error) problems.push(`the run failed: ${rec.error.message}`);
    const hung = cell(0, 1, 0, 'bandwidth');
    const failed = cell(1, 0, 1, 'bandwidth');
    if (hung?.pair?.error?.code !== 'CLAB_PAIR_TIMEOUT') problems.push(`1→0 (hang): ${hung?.verdict} ${hung?.pair?.error?.code}`);
    if (failed?.pair?.error?.code !== 'CLAB_INJECTED_ERROR') problems.push(`0→1 (error): ${failed?.verdict} ${failed?.pair?.error?.code}`);
    for (const [p, from, to] of [
      [0, 0, 1],
      [1, 1, 0],
    ]) {
      const bw = cell(p, from, to, 'bandwidth');
      const lat = cell(p, from, to, 'latency');
      const copy = cell(p, from, to, 'copy');
      if (bw?.verdict !== 'pass' || !(bw.algbw > 0)) problems.push(`${from}→${to} in step ${p}: ${bw?.verdict}`);
      if (lat?.verdict !== 'pass') problems.push(`latency ${from}→${to}: ${lat?.verdict}`);
      if (copy?.verdict !== 'pass' || !/cudaMemcpyPeerAsync/.test(copy?.pair?.how ?? ''))
        problems.push(`copy ${from}→${to}: ${copy?.verdict} ${copy?.pair?.how}`);
      if (!bw?.pair?.transport) problems.push(`${from}→${to}: no transport read from NCCL's INFO lines`);
      console.log(
        `    ${from}→${to}: ${bw?.algbw?.toFixed(1)} GB/s over ${bw?.pair?.transport}, latency ${lat?.timing?.perOp?.toFixed(2) ?? lat?.timing?.mean?.toFixed(2)} µs, copy ${copy?.algbw?.toFixed(1)} GB/s (${copy?.pair?.how})`,
      );
    }
    if (!(rec.environment.links ?? []).some((l) => l.nvlinks > 0 || l.pcie)) problems.push('no link between the GPUs in the record');
  }
  if (left.length) problems.push(`GPU processes left: ${left.join(', ')}`);
  record(
    name,
    problems.length === 0,
    `${problems.join('; ') || `status ${rec.status}, links ${JSON.stringify(rec.environment.links)}`}; ${seconds.toFixed(1)} s`,
  );
}

// ---- main ----------------------------------------------------------------------------------------

async function main() {
  // cpu ranks stand in for two GPUs, or CLAB_TEST_CPU_RANKS of them (a world the machine lacks GPUs for).
  const gpus = BACKEND === 'cpu' ? Number(process.env.CLAB_TEST_CPU_RANKS ?? 2) : gpuCount();
  const segmentsBefore = new Set(ncclSegments());
  console.log(`# clab GPU tests, ${new Date().toISOString()}, ${gpus} GPU(s); work dir ${work}`);
  const doctor = clab(['doctor']);
  console.log(
    doctor.out
      .trim()
      .split('\n')
      .map((l) => `#   ${l}`)
      .join('\n'),
  );
  const shipped = fs
    .readdirSync(path.join(root, 'scenarios'))
    .filter((f) => f.endsWith('.scenario.json'))
    .sort();
  const libraries = ncclLibraries(process.argv.slice(2), process.env);
  const second = libraries[1] ?? null;
  const secondMissing = second !== null && !fs.existsSync(second);
  if (secondMissing) record(`second NCCL ${second}`, false, 'no such file');
  else if (second)
    console.log(
      `# second NCCL: ${clab(['doctor', '--nccl', second])
        .out.split('\n')
        .find((l) => /\[[^\]]*--nccl\]/.test(l))}`,
    );
  for (const { ranks, nccl } of scenarioRuns(gpus, secondMissing ? [null] : libraries)) {
    for (const f of shipped) shippedScenario(path.join(root, 'scenarios', f), ranks, nccl);
  }
  if (gpus >= 2) {
    // NCCL reduces float8 only on compute capability 9.0 and later; below it clab stops at the first such step (unit-tested on cpu).
    expectPassed('every_dtype_and_redop', writeScenario('dtypes', dtypesAndRedops()), 2, (rec) => {
      const caps = rec.environment.gpus.map((g) => g.computeCapability);
      console.log(
        `    compute capability of the GPUs in the record: ${caps.map((c) => (c === undefined ? '?' : (c / 10).toFixed(1))).join(', ')}`,
      );
      return caps.length && caps.every((c) => c >= 90)
        ? null
        : `float8 reductions need compute capability 9.0 on every GPU (the record says ${caps.join(', ')})`;
    });
    expectPassed('every_form_streams_groups_gemm_objects', writeScenario('forms', everyForm()), 2, dataOnGpu);
    wrongElementsFound();
    ncclDebugCaptured();
    ncclErrorExplained();
    expectPassed('sweep_8B_to_1GiB_every_collective', writeScenario('sweeps', sweeps()), 2, (rec) => {
      const max = Math.max(...rec.steps.map((s) => s.bytes));
      const sweepsDone = new Set(rec.steps.filter((s) => s.origin.kind === 'sweep').map((s) => s.origin.sweep)).size;
      for (const sp of rec.plan.sweeps) {
        const top = rec.steps.filter((s) => s.origin.kind === 'sweep' && s.origin.sweep === sp.index && s.bytes >= 64 * 2 ** 20);
        const wrong = rec.steps.filter((s) => s.origin.kind === 'sweep' && s.origin.sweep === sp.index).reduce((a, s) => a + s.wrong, 0);
        console.log(
          `    ${sp.label.padEnd(28)} #wrong ${wrong}  busbw ≥64 MiB: ${top.map((s) => `${(s.bytes / 2 ** 20).toFixed(0)}M ${s.busbw?.toFixed(1)}`).join(', ')} GB/s`,
        );
      }
      return max >= GiB && sweepsDone === COLLECTIVES.length + 1 ? null : `largest size ${max} B, ${sweepsDone} sweeps`;
    });
    hangIsEnded();
    pairsIsolated();
    if (BACKEND === 'nccl') graphLaunch();
    if (BACKEND === 'nccl') insideNcclOnlyWhereAsked();
    if (BACKEND === 'nccl') stepsAhead();
    if (BACKEND === 'nccl') stampedLoops();
  }
  for (const ranks of [2, 4]) {
    if (gpus < ranks) continue;
    symmetricKernels(ranks);
    zeroSmCopyEngine(ranks);
  }
  if (gpus >= 1) registeredBuffers(Math.min(gpus, 2));
  if (gpus >= 1 && BACKEND === 'nccl') gemmSmCount();
  if (gpus >= 1) await outOfMemory();
  // Every run's ranks, done or killed, removed the names of NCCL's segments they mapped (nccl ranks only make them).
  const segmentsLeft = ncclSegments().filter((f) => !segmentsBefore.has(f));
  if (BACKEND === 'nccl')
    record(
      "no NCCL shared-memory segment left in /dev/shm by the suite's runs",
      segmentsLeft.length === 0,
      segmentsLeft.length ? `left: ${segmentsLeft.join(', ')}` : `${segmentsBefore.size} there before`,
    );
  const passed = results.filter((r) => r.ok && !r.skipped).length;
  const failed = results.filter((r) => !r.ok).length;
  const skipped = results.filter((r) => r.skipped).length;
  const left = gpuProcesses();
  // Its own work folder goes where everything passed (a full run's records are some GiB); a failed
  // run keeps it for reading, and says so; one named by WORK is the caller's.
  const kept = failed > 0 || process.env.WORK !== undefined;
  if (!kept) fs.rmSync(work, { recursive: true, force: true });
  console.log(
    `test:gpu: ${passed} passed, ${failed} failed, ${skipped} skipped on ${gpus} GPU(s); GPU processes left: ${left.length || 'none'}${kept ? `; records and logs in ${work}` : ''}`,
  );
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
