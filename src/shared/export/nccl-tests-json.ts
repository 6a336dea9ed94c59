// A run's sweeps as nccl-tests 2.19 writes them with `-J file.json` (src/util.cu, JSON file version
// 3): the same keys, units and order, one result per size with its out-of-place and in-place
// halves, so NVIDIA's tools/analyze_perf_json.py and anything else that reads those files reads
// this one. A clab sweep runs one half (`inPlace`); the other is null, as nccl-tests writes a half
// it did not run. Each rank is a process with one GPU (nThread 1, nGpus 1); where every rank timed
// every iteration, each size carries the per-iteration report nccl-tests writes with `-I 1`.
import { COLLECTIVE_DESCRIPTORS, type CollectiveName } from '../ops/index.js';
import type { PlanStep } from '../plan/types.js';
import type { RunRecord, StepRecord } from '../run/record/record.js';
import {
  NCCL_TESTS_NO_REDOP,
  NCCL_TESTS_TYPES,
  ncclTestsProgramOf,
  ncclTestsRoot,
  type NcclTestsProgram,
} from '../results/nccl-tests-names.js';

/** nccl-tests' JSON_FILE_VERSION. */
export const NCCL_TESTS_JSON_VERSION = 3;

export interface NcclTestsHalf {
  time: number;
  alg_bw: number;
  bus_bw: number;
  nwrong: number | null;
}

export interface NcclTestsPerIter {
  skipped_iterations: number;
  min_us: number;
  max_us: number;
  avg_us: number;
  p50_us: number;
  p95_us: number;
  p99_us: number;
  stdev_us: number;
  cv_pct: number;
  times_us: number[];
  per_process_max_times_us?: number[][];
}

export interface NcclTestsResult {
  size: number;
  count: number;
  type: string;
  redop: string;
  root: string;
  out_of_place: NcclTestsHalf | null;
  out_of_place_per_iter?: NcclTestsPerIter;
  in_place: NcclTestsHalf | null;
  in_place_per_iter?: NcclTestsPerIter;
  actual_iterations: number;
  experiment_name: string;
}

/** Thrown where the record holds nothing nccl-tests would write, or several programs' sweeps and no choice. */
export class NcclTestsExportError extends Error {}

/** nccl-tests' time stamps: strftime's "%Y-%m-%d %H:%M:%S" (here in UTC, as the record keeps its times). */
const stamp = (iso: string): string => iso.slice(0, 19).replace('T', ' ');

/** NCCL_VERSION_CODE of "2.28.3" (X*10000 + Y*100 + Z from 2.9 on); 0 where the record names no NCCL. */
function ncclVersionCode(version: string | null | undefined): number {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version ?? '');
  return m ? Number(m[1]) * 10000 + Number(m[2]) * 100 + Number(m[3]) : 0;
}

/** computeIterStats of nccl-tests (src/util.cu): percentiles by index into the sorted times, the population deviation. */
function iterStats(times: number[], perProcess: number[][] | null): NcclTestsPerIter {
  const sorted = [...times].sort((a, b) => a - b);
  const n = sorted.length;
  const at = (percentile: number) => sorted[Math.min(n - 1, Math.floor((n * percentile + 99) / 100) - 1)];
  const avg = sorted.reduce((s, t) => s + t, 0) / n;
  const stdev = Math.sqrt(sorted.reduce((s, t) => s + (t - avg) ** 2, 0) / n);
  return {
    skipped_iterations: 0,
    min_us: sorted[0],
    max_us: sorted[n - 1],
    avg_us: avg,
    p50_us: sorted[Math.floor(n / 2)],
    p95_us: at(95),
    p99_us: at(99),
    stdev_us: stdev,
    cv_pct: avg > 0 ? (stdev / avg) * 100 : 0,
    times_us: times,
    ...(perProcess ? { per_process_max_times_us: perProcess } : {}),
  };
}

/**
 * The per-iteration report of a step where every rank timed the same iterations: each iteration's
 * time the slowest rank's (nccl-tests: the max over process rows), and each rank's row beside it.
 */
function perIter(step: StepRecord, world: number): NcclTestsPerIter | null {
  const ranks = [...step.ranks].sort((a, b) => a.rank - b.rank);
  const n = ranks[0]?.timesUs.length ?? 0;
  if (n === 0 || ranks.length !== world || ranks.some((r) => r.timesUs.length !== n)) return null;
  const times = Array.from({ length: n }, (_, i) => Math.max(...ranks.map((r) => r.timesUs[i])));
  return iterStats(times, world > 1 ? ranks.map((r) => r.timesUs) : null);
}

/**
 * One half of a size: nccl-tests' time is the timed loop over its iterations, per op (perOp),
 * else the iterations' mean; the bandwidths are from that time, busbw by the step's own factor.
 */
function half(step: StepRecord): NcclTestsHalf | null {
  if (!step.timing || step.bytes <= 0) return null;
  const time = step.timing.perOp ?? step.timing.mean;
  const algBw = time > 0 ? step.bytes / time / 1e3 : 0;
  const factor = step.algbw && step.busbw !== null ? step.busbw / step.algbw : 1;
  const checked = step.ranks.some((r) => r.verdict === 'pass' || r.verdict === 'fail');
  return { time, alg_bw: algBw, bus_bw: algBw * factor, nwrong: checked ? step.wrong : null };
}

/** nccl-tests' count column: the elements each rank's call is given (args->nbytes / wordSize). */
function ncclCount(planStep: PlanStep, world: number): number {
  const a = planStep.action;
  if (a.kind === 'collective')
    return COLLECTIVE_DESCRIPTORS[a.op as CollectiveName].buffers({ count: a.count, world, rank: 0, root: a.root }).nativeCount;
  if (a.kind === 'group') return a.items[0]?.count ?? 0;
  return a.kind === 'p2p' ? a.count : 0;
}

/** The sweeps written: the one asked for, else every sweep of the one program the record's sweeps are of. */
function chosenSweeps(record: RunRecord, sweep: number | undefined): { sweeps: number[]; program: NcclTestsProgram } {
  const { sweeps } = record.plan;
  const measured = sweeps.map((s) => ({ index: s.index, op: s.op, program: ncclTestsProgramOf(s.op) }));
  if (sweep !== undefined) {
    const s = measured[sweep];
    if (!s) throw new NcclTestsExportError(`the run has no sweep ${sweep} (it has ${sweeps.length}: 0 to ${sweeps.length - 1})`);
    if (!s.program) throw new NcclTestsExportError(`sweep ${sweep} is a ${s.op} sweep, which no nccl-tests program measures`);
    return { sweeps: [sweep], program: s.program };
  }
  const programs = [...new Set(measured.flatMap((s) => (s.program ? [s.program] : [])))];
  if (programs.length === 0)
    throw new NcclTestsExportError(
      sweeps.length
        ? `the run's sweeps (${sweeps.map((s) => s.op).join(', ')}) are of ops no nccl-tests program measures`
        : 'the run has no sweep: nccl-tests JSON holds a sweep over sizes',
    );
  if (programs.length > 1)
    throw new NcclTestsExportError(
      `the run has sweeps of ${programs.join(' and ')}; an nccl-tests file holds one program's: pass --sweep N (${measured
        .filter((s) => s.program)
        .map((s) => `${s.index}: ${s.op}`)
        .join(', ')})`,
    );
  return { sweeps: measured.filter((s) => s.program === programs[0]).map((s) => s.index), program: programs[0] };
}

/** The results, one per size (and type, op and root): a size measured in place by one sweep and out of place by another is one. */
function results(record: RunRecord, sweeps: number[], program: NcclTestsProgram): { rows: NcclTestsResult[]; perIter: boolean } {
  const world = record.world;
  const rows: NcclTestsResult[] = [];
  /** The latest result of each size, type, op and root: the next half of that size joins it where its place is free. */
  const open = new Map<string, NcclTestsResult>();
  let everyPerIter = true;
  const wanted = new Set(sweeps);
  for (const step of record.steps) {
    if (step.origin.kind !== 'sweep' || !wanted.has(step.origin.sweep)) continue;
    const h = half(step);
    if (!h) continue;
    const spec = record.plan.sweeps[step.origin.sweep];
    const a = step.action;
    const place = a.kind === 'collective' && a.inPlace ? 'in_place' : 'out_of_place';
    const desc = a.kind === 'collective' ? COLLECTIVE_DESCRIPTORS[a.op as CollectiveName] : null;
    const type = NCCL_TESTS_TYPES[spec.dtype];
    // sendrecv_perf prints the -o op it was given although nothing reduces.
    const redop = desc?.reduces || program === 'sendrecv_perf' ? spec.redop : NCCL_TESTS_NO_REDOP;
    const root = ncclTestsRoot(desc?.rooted ? spec.root : -1);
    const key = `${step.bytes}|${type}|${redop}|${root}`;
    const planStep = record.plan.steps[step.index];
    const iter = perIter(step, world);
    everyPerIter &&= iter !== null;
    let row = open.get(key);
    if (!row || row[place] !== null) {
      row = {
        size: step.bytes,
        count: ncclCount(planStep, world),
        type,
        redop,
        root,
        out_of_place: null,
        in_place: null,
        actual_iterations: planStep.iters,
        experiment_name: '',
      };
      rows.push(row);
      open.set(key, row);
    }
    row[place] = h;
    if (iter) row[place === 'in_place' ? 'in_place_per_iter' : 'out_of_place_per_iter'] = iter;
  }
  return { rows, perIter: everyPerIter && rows.length > 0 };
}

/** nccl-tests' key order within a result: a half, then its per-iteration report. */
const orderedResult = (r: NcclTestsResult): NcclTestsResult => ({
  size: r.size,
  count: r.count,
  type: r.type,
  redop: r.redop,
  root: r.root,
  out_of_place: r.out_of_place,
  ...(r.out_of_place_per_iter ? { out_of_place_per_iter: r.out_of_place_per_iter } : {}),
  in_place: r.in_place,
  ...(r.in_place_per_iter ? { in_place_per_iter: r.in_place_per_iter } : {}),
  actual_iterations: r.actual_iterations,
  experiment_name: r.experiment_name,
});

/** The rank's device line (nccl-tests' "#  Rank  0 Group  0 Pid … on HOST device 0 [0000:07:00] NAME"), from the record. */
function devices(record: RunRecord) {
  return Array.from({ length: record.world }, (_, rank) => {
    const host = record.hosts?.find((h) => h.ranks.includes(rank));
    const environment = host?.environment ?? record.environment;
    const device = record.plan.devices?.[rank] ?? (environment.backend === 'nccl' ? rank : -1);
    const gpu = environment.gpus.find((g) => g.index === device);
    return {
      rank,
      group: 0,
      // The record keeps no rank's pid.
      pid: 0,
      hostname: host?.name ?? environment.host,
      device,
      device_hex: gpu ? gpu.busId.replace(/^0*([0-9a-f]{4}:)/i, '$1').replace(/\.\d+$/, '') : '',
      device_info: gpu?.name ?? `${environment.backend} rank`,
    };
  });
}

/**
 * The record's sweeps as nccl-tests' `-J` file, handed to `write` a piece at a time (a result
 * with every rank's iterations can be large). `sweep`: one sweep (its index in the plan); by
 * default every sweep, where they are all of one nccl-tests program.
 */
export function writeNcclTestsJson(record: RunRecord, write: (chunk: string) => void, sweep?: number): void {
  const { sweeps, program } = chosenSweeps(record, sweep);
  const { rows, perIter: perIterTiming } = results(record, sweeps, program);
  if (rows.length === 0) throw new NcclTestsExportError(`the run's ${program.replace(/_perf$/, '')} sweep has no timed size`);
  const first = record.plan.steps.find((s) => s.origin.kind === 'sweep' && s.origin.sweep === sweeps[0])!;
  const spec = record.plan.sweeps[sweeps[0]];
  const sizes = rows.map((r) => r.size);
  const min = Math.min(...sizes);
  const max = Math.max(...sizes);
  const distinct = [...new Set(sizes)].sort((a, b) => a - b);
  const ratios = new Set(distinct.slice(1).map((s, i) => s / distinct[i]));
  const steps = new Set(distinct.slice(1).map((s, i) => s - distinct[i]));
  const factor = ratios.size === 1 && Number.isInteger([...ratios][0]) ? [...ratios][0] : null;
  const stepBytes = factor === null && steps.size === 1 ? [...steps][0] : null;
  const checked = rows.some((r) => (r.out_of_place ?? r.in_place)?.nwrong !== null);
  const graph = first.launch === 'graph';
  const args = [
    `./build/${program}`,
    ...['-b', String(min), '-e', String(max)],
    ...(factor !== null ? ['-f', String(factor)] : stepBytes !== null ? ['-i', String(stepBytes)] : []),
    ...['-g', '1', '-w', String(first.warmup), '-n', String(first.iters), '-c', checked ? '1' : '0'],
    ...['-d', NCCL_TESTS_TYPES[spec.dtype], ...(rows[0].redop !== NCCL_TESTS_NO_REDOP ? ['-o', rows[0].redop] : [])],
    ...(graph ? ['-G', '1'] : []),
    ...(perIterTiming ? ['-I', '1'] : []),
  ];
  const halves = rows.flatMap((r) => [r.out_of_place, r.in_place].filter((h): h is NcclTestsHalf => h !== null));
  const wrong = halves.reduce((s, h) => s + (h.nwrong ?? 0), 0);
  const head = {
    version: NCCL_TESTS_JSON_VERSION,
    start_time: stamp(record.createdAt),
    args,
    env: Object.entries(record.environment.env).map(([k, v]) => `${k}=${v}`),
    nccl_version: ncclVersionCode(record.environment.ncclLibrary?.version),
    config: {
      nthreads: 1,
      ngpus: 1,
      minimum_bytes: min,
      maximum_bytes: max,
      ...(factor !== null ? { step_factor: factor } : { step_bytes: stepBytes ?? 0 }),
      warmup_iters: first.warmup,
      iterations: first.iters,
      aggregated_iterations: 1,
      validation: checked ? 1 : 0,
      graph: graph ? 1 : 0,
      // nccl-tests writes its booleans as the strings "true" and "false".
      blocking_collectives: 'false',
      per_iter_timing: perIterTiming ? 'true' : 'false',
      per_iter_skip: 0,
      parallel_init: 'false',
      devices: devices(record),
    },
  };
  // One line for the head and for each size (nccl-tests writes one line in all; a reader sees no difference).
  const headText = JSON.stringify(head);
  write(`${headText.slice(0, -1)},"results":[`);
  rows.forEach((r, i) => write(`${i ? ',' : ''}\n${JSON.stringify(orderedResult(r))}`));
  const tail = {
    out_of_bounds: { count: wrong, okay: wrong === 0 ? 'true' : 'false' },
    average_bus_bandwidth: { bandwidth: halves.reduce((s, h) => s + h.bus_bw, 0) / halves.length, okay: 'unchecked' },
    errors: record.error ? [record.error.message] : [],
    end_time: stamp(record.finishedAt ?? record.createdAt),
  };
  write(`\n],${JSON.stringify(tail).slice(1)}\n`);
}
