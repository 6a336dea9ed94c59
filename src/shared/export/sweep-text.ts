// A sweep as nccl-tests prints it: the table, the α-β model's and NCCL's columns beside it, and the
// `#` notes under it (loop stalls, what each size ran on, what the model and NCCL said). Pure.
import { formatMicroseconds as us, RESULT_COLUMNS, resultTexts } from '../results/results-table.js';
import type { Plan } from '../plan/types.js';
import type { Environment, StepRecord } from '../run/record/record.js';
import { modelSummary, sweepModel, type SweepModel, type SweepModelRow } from '../learn/sweep-model.js';
import { wrapWords } from '../data/wrap.js';
import { formatBandwidth, formatBytes } from '../data/units.js';
import { describeLoopStall, loopStalls } from '../run/rank/loop-host.js';
import { describeChoice, oneChoice, type NcclStepSummary } from '../run/nccl/nccl-step-info.js';
import { describeRan } from '../run/nccl/nccl-kernels.js';

/** Where a rank's loop waited for the host (loop-host.ts): one line each, under the timing line. */
export function loopStallLines(step: StepRecord): string[] {
  return loopStalls(step.ranks).map((s) => `    ! ${describeLoopStall(s)}`);
}

/** The same as `#` notes of a sweep table, each naming its row's size. */
function loopStallNotes(rows: readonly StepRecord[]): string[] {
  return rows
    .flatMap((r) => loopStalls(r.ranks).map((s) => `at ${formatBytes(r.bytes)}, ${describeLoopStall(s)}.`))
    .flatMap((note) => wrapWords(note, 100, '# ', '#   '));
}

/** What each size of a sweep ran on (describeRan), as `#` notes, for tables whose rows were printed before the record said. */
export function sweepRanNotes(steps: readonly StepRecord[], sweep: number): string[] {
  return steps
    .filter((s) => s.origin.kind === 'sweep' && s.origin.sweep === sweep)
    .flatMap((r) => {
      const ran = describeRan(r);
      return ran === null ? [] : [`at ${formatBytes(r.bytes)}, ran on ${ran}.`];
    })
    .flatMap((note) => wrapWords(note, 100, '# ', '#   '));
}

/** A sweep's loop stall notes, for tables whose rows were printed already. */
export function sweepLoopStallNotes(steps: readonly StepRecord[], sweep: number): string[] {
  return loopStallNotes(steps.filter((s) => s.origin.kind === 'sweep' && s.origin.sweep === sweep));
}

export const pad = (s: string, n: number): string => s.padStart(n);

export const SWEEP_HEADER = [
  `#${RESULT_COLUMNS.map((c) => pad(c.title, c.width)).join('')}`,
  `#${RESULT_COLUMNS.map((c) => pad(c.unit, c.width)).join('')}`,
];

/** One nccl-tests-style row: size, count, type, redop, root, time, algbw, busbw, #wrong. */
export function sweepRow(step: StepRecord): string {
  const texts = resultTexts(step);
  return ` ${RESULT_COLUMNS.map((c) => pad(texts[c.id], c.width)).join('')}`;
}

/** The α-β model's columns, after nccl-tests' own: predicted busbw and measured busbw over the link's peak. */
const MODEL_HEADER = [`${pad('model', 9)}${pad('%peak', 7)}`, `${pad('(GB/s)', 9)}${pad('', 7)}`];

const modelCells = (row: SweepModelRow | undefined) =>
  `${pad(row ? row.busbw.toFixed(2) : 'n/a', 9)}${pad(row?.percentOfPeak?.toFixed(1) ?? 'n/a', 7)}`;

/** What the model assumed and what it says about the measurement, as `#` lines of at most 100 columns. */
function modelNotes(model: SweepModel): string[] {
  return [`model is the busbw predicted for a ${modelSummary(model)}. %peak is the measured busbw over β.`, ...model.notes].flatMap(
    (note) => wrapWords(note, 100, '# ', '#   '),
  );
}

/**
 * NCCL's own choice, after the other columns, where the profiler plug-in saw the sweep's calls:
 * algorithm, protocol, channels, a call's median span on the GPU from its channels' kernels, and
 * NCCL's own predicted time for its choice (the pass-through tuner's cost table).
 */
const NCCL_HEADER = [
  `  ${'algo'.padEnd(8)}${'proto'.padEnd(8)}${pad('nCh', 4)}${pad('kernel', 9)}${pad('nccl', 9)}`,
  `  ${''.padEnd(8)}${''.padEnd(8)}${pad('', 4)}${pad('(us)', 9)}${pad('(us)', 9)}`,
];

function ncclCells(step: StepRecord | undefined): string {
  const n = step?.nccl;
  if (!n) return `  ${'-'.padEnd(8)}${'-'.padEnd(8)}${pad('-', 4)}${pad('-', 9)}${pad('-', 9)}`;
  const kernel = n.kernelMedianUs === null ? 'n/a' : us(n.kernelMedianUs);
  const predicted = n.predictedChosenUs === null || n.predictedChosenUs === undefined ? 'n/a' : us(n.predictedChosenUs);
  return `  ${oneChoice(n.algo).padEnd(8)}${oneChoice(n.proto).padEnd(8)}${pad(oneChoice(n.nChannels), 4)}${pad(kernel, 9)}${pad(predicted, 9)}`;
}

/** What each size ran on, last in a row, where any size says (describeRan). */
const RAN_HEADER = ['  ran on', '  '];
const ranCell = (step: StepRecord | undefined) => `  ${(step && describeRan(step)) ?? '-'}`;

/**
 * Where the network carried the data: NCCL's proxy operations and steps, and where the steps' time
 * went ("network 62 %, GPU 30 %, peer 8 %"), largest first.
 */
export function proxyNote(p: NcclStepSummary['proxy']): string[] {
  if (!p || p.ops === 0) return [];
  const total = p.waitUs.gpu + p.waitUs.peer + p.waitUs.network + p.waitUs.flush;
  const names = {
    network: 'on the network',
    gpu: 'waiting for the GPU',
    peer: "waiting for the peer's credit",
    flush: 'flushing',
  } as const;
  const shares = (Object.keys(names) as (keyof typeof names)[])
    .map((k) => [k, total > 0 ? p.waitUs[k] / total : 0] as const)
    .filter(([, x]) => x >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .map(([k, x]) => `${names[k]} ${Math.round(100 * x)} %`);
  return [
    `proxy: ${p.ops} operations, ${p.steps} steps, ${formatBytes(p.bytes)}${shares.length ? ` (steps' time ${shares.join(', ')})` : ''}`,
  ];
}

/** What varied within a size, what the profiler missed, and what the columns mean. */
function ncclNotes(rows: readonly StepRecord[]): string[] {
  const notes = rows.flatMap((r) => {
    const n = r.nccl;
    if (!n) return [];
    const varied = (['algo', 'proto', 'nChannels'] as const)
      .filter((f) => Object.keys(n[f]).length > 1)
      .map((f) => `${f === 'nChannels' ? 'channels' : f} ${describeChoice(n[f])}`);
    const missed = n.seen < n.calls ? [`the profiler saw ${n.seen} of ${n.calls} calls`] : [];
    const ends = n.missingEnds + n.zeroTimes > 0 ? [`${n.missingEnds} channel ends missing, ${n.zeroTimes} channels stamped zero`] : [];
    const all = [...varied, ...missed, ...ends, ...proxyNote(n.proxy)];
    return all.length ? [`at ${formatBytes(r.bytes)}: ${all.join('; ')}.`] : [];
  });
  return [
    "algo, proto and nCh are NCCL's own choice for each call (its profiler's events, all ranks); kernel is a call's span on the GPU from its channels' kernels (median); nccl is the time NCCL's cost table predicted for its choice (the lab's tuner plug-in, which changes nothing).",
    ...notes,
  ].flatMap((note) => wrapWords(note, 100, '# ', '#   '));
}

/**
 * nccl-tests' table of one sweep; given the run's environment, with the α-β model's columns at the
 * end of each row and its notes below (none where the record cannot say what the link's peak is).
 */
/**
 * A sweep table's first line: the sweep, and which half of nccl-tests' table its rows are (nccl-tests
 * prints each size out-of-place, then in-place; a clab sweep runs one of them; sends have one).
 */
export function sweepTitle(plan: Plan, sweep: number): string {
  const spec = plan.sweeps[sweep];
  const first = plan.steps.find((s) => s.origin.kind === 'sweep' && s.origin.sweep === sweep)?.action;
  const half =
    first?.kind !== 'collective'
      ? ''
      : first.inPlace
        ? ', in-place: nccl-tests\' right half ("inPlace": false for its left)'
        : ', out-of-place: nccl-tests\' left half ("inPlace": true for its right, where the op has one)';
  // Which launch, where the plan has graph-launched steps (a sweep beside its host-launched twin).
  const graph = plan.steps.some((s) => s.origin.kind === 'sweep' && s.origin.sweep === sweep && s.launch === 'graph');
  const launch = graph
    ? ", graph-launched: time is one CUDA graph replay of each size's iterations (nccl-tests -G)"
    : plan.steps.some((s) => s.launch === 'graph')
      ? ', host-launched: the CPU launches every op of the loop'
      : '';
  return `# ${spec.label} (${spec.path}), ${plan.world} ranks${half}${launch}`;
}

export function sweepTable(plan: Plan, steps: StepRecord[], sweep: number, environment?: Environment): string[] {
  const rows = steps.filter((s) => s.origin.kind === 'sweep' && s.origin.sweep === sweep);
  const wrong = rows.reduce((s, r) => s + r.wrong, 0);
  const large = rows.filter((r) => r.busbw !== null).slice(-1)[0];
  const model = environment ? sweepModel(plan, environment, steps, sweep) : null;
  const modelOf = new Map(model?.rows.map((r) => [r.step, r]));
  const nccl = rows.some((r) => r.nccl);
  const ran = rows.some((r) => describeRan(r) !== null);
  const header = (h: string, i: number) => h + (model ? MODEL_HEADER[i] : '') + (nccl ? NCCL_HEADER[i] : '') + (ran ? RAN_HEADER[i] : '');
  return [
    sweepTitle(plan, sweep),
    ...SWEEP_HEADER.map(header),
    ...rows.map(
      (r) => sweepRow(r) + (model ? modelCells(modelOf.get(r.index)) : '') + (nccl ? ncclCells(r) : '') + (ran ? ranCell(r) : ''),
    ),
    `# Out of bounds values : ${wrong} ${wrong ? 'ERROR' : 'OK'}`,
    ...(large ? [`# busbw at the largest size: ${formatBandwidth(large.busbw!)}`] : []),
    ...loopStallNotes(rows),
    ...(model ? modelNotes(model) : []),
    ...(nccl ? ncclNotes(rows) : []),
  ];
}

/**
 * The model beside rows printed already (`clab run` on a pipe prints each row as it ends, before
 * the record, and so the link's peak, is known): size, model and %peak, then the notes.
 */
export function sweepModelTable(plan: Plan, steps: StepRecord[], sweep: number, environment: Environment): string[] {
  const model = sweepModel(plan, environment, steps, sweep);
  if (!model) return [];
  const size = RESULT_COLUMNS[0];
  const byIndex = new Map(steps.map((s) => [s.index, s]));
  const nccl = model.rows.some((r) => byIndex.get(r.step)?.nccl);
  return [
    `#${pad(size.title, size.width)}${MODEL_HEADER[0]}${nccl ? NCCL_HEADER[0] : ''}`,
    `#${pad(size.unit, size.width)}${MODEL_HEADER[1]}${nccl ? NCCL_HEADER[1] : ''}`,
    ...model.rows.map((r) => ` ${pad(String(r.bytes), size.width)}${modelCells(r)}${nccl ? ncclCells(byIndex.get(r.step)) : ''}`),
    ...modelNotes(model),
    ...(nccl ? ncclNotes(model.rows.flatMap((r) => byIndex.get(r.step) ?? [])) : []),
  ];
}
