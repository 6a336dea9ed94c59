// The α-β model set beside one measured sweep: α from the sweep's smallest size, β from the
// link's peak in the record's environment, a prediction for every size, and notes in words where
// the measurement beats the model or falls far short of it. The CLI's sweep table, replay and the
// results view all read it from here.
import { formatMicroseconds } from '../results/results-table.js';
import { rankDevice } from '../plan/per-rank.js';
import type { Plan } from '../plan/types.js';
import type { Environment, StepRecord } from '../run/record/record.js';
import { formatBytes } from '../data/units.js';
import { bandwidthTime } from '../data/stats.js';
import { shortChoice } from '../run/nccl/nccl-step-info.js';
import {
  algorithmsOf,
  isModelledOp,
  latencyFromMeasurement,
  linkBytes,
  modelHops,
  predictBusBandwidth,
  predictTimeUs,
  type Algorithm,
  type ModelledOp,
} from './model.js';
import { linkPeak, type LinkPeak } from './peak.js';
import { GRAPH_LATENCY_NOTE, graphLaunched } from './launch.js';

export interface SweepModelRow {
  /** The step's index in the record. */
  step: number;
  bytes: number;
  /** Predicted time per call, µs. */
  timeUs: number;
  /** Predicted busbw, GB/s. */
  busbw: number;
  /** Measured busbw over β, in percent; null where nothing was measured. */
  percentOfPeak: number | null;
}

export interface SweepModel {
  op: ModelledOp;
  world: number;
  algorithm: Algorithm;
  /** α, µs per hop. */
  latencyUs: number;
  /** The size α was solved from (the fastest per hop of the smallest few). */
  latencyBytes: number;
  hops: number;
  peak: LinkPeak;
  rows: SweepModelRow[];
  /** The op's other algorithms with the same α and β (all_reduce: the tree), for the chart. */
  alternatives: { algorithm: Algorithm; hops: number; rows: { bytes: number; busbw: number }[] }[];
  /** What the model says about the measurement, one sentence each. */
  notes: string[];
}

/** A measurement this much above the model is worth a sentence (timing noise stays below it). */
const ABOVE_MODEL = 1.15;
/** Below this share of the peak, or of the model, is "far short". */
const FAR_SHORT = 0.5;
/**
 * α is solved from this many of the smallest sizes, and the fastest of them taken: a sweep's
 * first call is often slow (a cold path), and one slow row would make the whole model slow.
 */
const LATENCY_ROWS = 4;
/** Only rows whose bytes took at most this share of their time at β say much about α. */
const LATENCY_BOUND = 0.1;

/** The ranks whose links carry the sweep: all of them, or a send's two. */
function ranksOf(steps: StepRecord[], world: number): number[] {
  const a = steps[0]?.action;
  if (a?.kind === 'p2p') return [a.from, a.to];
  return Array.from({ length: world }, (_, r) => r);
}

const measured = (s: StepRecord) => s.timing !== null && s.busbw !== null && s.bytes > 0 && bandwidthTime(s.timing) > 0;

/** "1 KiB – 64 KiB", or "1 KiB" for one size. */
function sizeRange(bytes: number[]): string {
  return bytes.length === 1 ? formatBytes(bytes[0]) : `${formatBytes(bytes[0])} – ${formatBytes(bytes[bytes.length - 1])}`;
}

/** Runs of consecutive rows that `keep` holds for, as size ranges: "8 B – 1 KiB, 64 MiB". */
function rangesWhere(rows: SweepModelRow[], keep: (row: SweepModelRow) => boolean): string | null {
  const runs: number[][] = [];
  let current: number[] | null = null;
  for (const row of rows) {
    if (keep(row)) {
      if (!current) runs.push((current = []));
      current.push(row.bytes);
    } else current = null;
  }
  return runs.length ? runs.map(sizeRange).join(', ') : null;
}

const percent = (x: number) => `${x.toFixed(0)} %`;

export function sweepModel(
  plan: Pick<Plan, 'sweeps' | 'devices' | 'world'>,
  environment: Environment,
  steps: StepRecord[],
  sweep: number,
): SweepModel | null {
  const op = plan.sweeps[sweep]?.op;
  const world = plan.world;
  const rows = steps.filter((s) => s.origin.kind === 'sweep' && s.origin.sweep === sweep);
  if (op === undefined || !isModelledOp(op) || world < 2) return null;
  const peak = linkPeak(
    environment,
    ranksOf(rows, world).map((r) => rankDevice(plan, r)),
  );
  const timed = rows.filter(measured);
  if (!peak || timed.length === 0) return null;
  const algorithm = algorithmsOf(op)[0];
  const smallest = [...timed].sort((a, b) => a.bytes - b.bytes).slice(0, LATENCY_ROWS);
  const bytesUs = (s: StepRecord) => linkBytes(op, algorithm, world, s.bytes) / (peak.gbps * 1e3);
  const latencyRows = smallest.filter((s) => bytesUs(s) <= LATENCY_BOUND * bandwidthTime(s.timing!));
  const solved = (latencyRows.length ? latencyRows : smallest.slice(0, 1)).map((s) => ({
    bytes: s.bytes,
    latencyUs: latencyFromMeasurement(op, algorithm, world, s.bytes, bandwidthTime(s.timing!), peak.gbps),
  }));
  const { bytes: latencyBytes, latencyUs } = solved.reduce((a, b) => (b.latencyUs < a.latencyUs ? b : a));
  const link = { latencyUs, peakGBps: peak.gbps };
  const modelRows = timed.map((s) => ({
    step: s.index,
    bytes: s.bytes,
    timeUs: predictTimeUs(op, algorithm, world, s.bytes, link),
    busbw: predictBusBandwidth(op, algorithm, world, s.bytes, link),
    percentOfPeak: (s.busbw! / peak.gbps) * 100,
  }));
  const model: SweepModel = {
    op,
    world,
    algorithm,
    latencyUs,
    latencyBytes,
    hops: modelHops(op, algorithm, world),
    peak,
    rows: modelRows,
    notes: [],
    alternatives: algorithmsOf(op)
      .slice(1)
      .map((other) => ({
        algorithm: other,
        hops: modelHops(op, other, world),
        rows: timed.map((s) => ({ bytes: s.bytes, busbw: predictBusBandwidth(op, other, world, s.bytes, link) })),
      })),
  };
  model.notes = [
    ...(timed.some(graphLaunched) ? [GRAPH_LATENCY_NOTE] : []),
    ...sweepNotes(model, new Map(timed.map((s) => [s.index, s.busbw!])), environment.backend),
    ...ncclChoiceNotes(model, timed),
  ];
  return model;
}

// NVLS and CollNet each come in two forms that NCCL names apart; busbw's factor fares alike in both.
const WHY_NVLS = "NVLS reduces inside the NVSwitch, so each rank sends its data once and busbw can pass the link's peak";
const WHY_COLLNET = "CollNet reduces in the network's switches, so fewer bytes cross each link than busbw's factor assumes";

/** Why busbw's factor holds for what NCCL ran, per algorithm in its profiler's names. */
const WHY_FACTOR: Record<string, string> = {
  RING: "a ring moves the (n−1)/n per pass over each rank's link that busbw's factor counts, so busbw compares with the link's peak",
  TREE: "a tree sends each rank's data up and the result down, about as many bytes per link as a ring at large sizes (busbw's factor holds there), with fewer, longer hops",
  NVLS: WHY_NVLS,
  NVLS_TREE: WHY_NVLS,
  COLLNET_DIRECT: WHY_COLLNET,
  COLLNET_CHAIN: WHY_COLLNET,
  PAT: 'PAT (parallel aggregated trees) moves the same bytes per rank as a ring in fewer, larger steps',
};

/**
 * What NCCL chose across the sweep (the profiler plug-in's events), as ranges of sizes, and why
 * busbw's factor applies to each algorithm it ran. None where the record has no NCCL events.
 */
function ncclChoiceNotes(model: SweepModel, steps: StepRecord[]): string[] {
  const choiceOf = new Map(steps.map((s) => [s.index, shortChoice(s.nccl)]));
  const choices = [...new Set(model.rows.map((r) => choiceOf.get(r.step)).filter((c): c is string => !!c))];
  if (!choices.length) return [];
  const ranges = choices.map((c) => `${c} at ${rangesWhere(model.rows, (r) => choiceOf.get(r.step) === c)}`);
  const algorithms = [...new Set(steps.flatMap((s) => Object.keys(s.nccl?.algo ?? {})))];
  const why = algorithms.filter((a) => WHY_FACTOR[a]).map((a) => `${a}: ${WHY_FACTOR[a]}`);
  return [`NCCL chose ${ranges.join('; ')} (its profiler's events).${why.length ? ` ${why.join('. ')}.` : ''}`];
}

function sweepNotes(model: SweepModel, busbwOf: Map<number, number>, backend: Environment['backend']): string[] {
  const notes: string[] = [];
  const measuredOf = (row: SweepModelRow) => busbwOf.get(row.step)!;
  const modelShare = (row: SweepModelRow) => row.busbw / model.peak.gbps;
  // The row α was solved from matches the model by construction, so it proves nothing either way.
  const isAbove = (r: SweepModelRow) => r.bytes !== model.latencyBytes && measuredOf(r) > ABOVE_MODEL * r.busbw;
  // Where the model's time is mostly α, beating it means cheaper hops; where mostly bytes, a faster path.
  const latencyShare = (r: SweepModelRow) => (model.hops * model.latencyUs) / r.timeUs;
  const aboveLatency = rangesWhere(model.rows, (r) => isAbove(r) && latencyShare(r) >= 0.5);
  const aboveBandwidth = rangesWhere(model.rows, (r) => isAbove(r) && latencyShare(r) < 0.5);
  const nccl =
    model.algorithm === 'ring' && algorithmsOf(model.op).includes('tree')
      ? 'NCCL likely used the tree or NVLS algorithm there, or its low-latency protocols (LL, LL128), which a plain ring does not describe'
      : "NCCL's low-latency protocols (LL, LL128) there take less per hop than the α solved from the smallest sizes";
  if (aboveLatency) {
    const why =
      backend === 'cpu' ? "those calls took less than α per hop: a small call's time varies by more than the model's 15 % margin" : nccl;
    notes.push(`above the ${model.algorithm} model at ${aboveLatency}: ${why}.`);
  }
  if (aboveBandwidth) {
    const why = backend === 'cpu' ? 'the buffers fit in a CPU cache there, which copies faster than the 64 MiB copy that measured β' : nccl;
    notes.push(`above the ${model.algorithm} model at ${aboveBandwidth}: ${why}.`);
  }
  const overPeak = model.rows.filter((r) => measuredOf(r) > model.peak.gbps);
  if (overPeak.length && backend !== 'cpu') {
    notes.push(
      `above the link's peak at ${rangesWhere(model.rows, (r) => measuredOf(r) > model.peak.gbps)}: fewer bytes crossed each link than busbw assumes (NVLS reduces inside the NVSwitch, or the GPUs share memory over another path).`,
    );
  }
  const farBelowModel = (r: SweepModelRow) => measuredOf(r) < FAR_SHORT * r.busbw;
  // Below half the peak where the model says so too: latency, as expected, not a problem.
  const latencyBound = (r: SweepModelRow) => r.percentOfPeak! < FAR_SHORT * 100 && modelShare(r) < FAR_SHORT && !farBelowModel(r);
  const bound = rangesWhere(model.rows, latencyBound);
  if (bound) {
    notes.push(
      `below 50 % of peak at ${bound}: small messages are latency-bound — each of the ${model.hops} hops costs α = ${formatMicroseconds(model.latencyUs)} µs ` +
        'however few bytes it carries, and the model predicts this too.',
    );
  }
  const short = (r: SweepModelRow) => farBelowModel(r) || (r.percentOfPeak! < FAR_SHORT * 100 && modelShare(r) >= FAR_SHORT);
  const shortLatency = rangesWhere(model.rows, (r) => short(r) && latencyShare(r) >= 0.5);
  if (shortLatency) {
    const why =
      backend === 'cpu'
        ? 'those calls waited far longer than their hops explain: a rank was not running when its peer was ready (more busy processes than cores, or another program took them)'
        : 'those calls waited far longer than their hops explain (a kernel launch held up, another process on the GPU, or a slow first call)';
    notes.push(`far short of the model at ${shortLatency}: ${why}.`);
  }
  const shortBandwidth = rangesWhere(model.rows, (r) => short(r) && latencyShare(r) < 0.5);
  if (shortBandwidth) {
    const why =
      backend === 'cpu'
        ? 'the cpu backend moves each byte through shared memory with more than one copy, and reduces on the CPU'
        : 'the path between the GPUs is slower than the link the peak was read from (PCIe through a CPU, another process on the link), or NCCL used fewer channels than the link has';
    notes.push(`far short of the model at ${shortBandwidth}, where bandwidth, not latency, should rule: ${why}.`);
  }
  const largest = model.rows[model.rows.length - 1];
  notes.push(
    `at the largest size, ${formatBytes(largest.bytes)}: ${percent(largest.percentOfPeak!)} of peak measured, ${percent(modelShare(largest) * 100)} predicted.`,
  );
  return notes;
}

/** One line that says what the model assumed: "ring all_reduce on 4 ranks: α = 9.10 µs a hop (from 8 B), β = 6.71 GB/s (…)". */
export function modelSummary(model: SweepModel): string {
  return (
    `${model.algorithm} ${model.op} on ${model.world} ranks: ${model.hops} hop${model.hops === 1 ? '' : 's'} of α = ${formatMicroseconds(model.latencyUs)} µs ` +
    `(the fastest per hop of the smallest sizes: ${formatBytes(model.latencyBytes)}), β = ${model.peak.gbps.toFixed(2)} GB/s (${model.peak.from})`
  );
}
