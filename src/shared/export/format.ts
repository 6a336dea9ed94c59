// Text views of results: the per-rank lines a learner reads, nccl-tests-style sweep tables,
// pair matrices and compare summaries. Pure, so the CLI, replay and tests share them.
import { CPU_RUNS_NCCL_SETTINGS_ALIKE, ncclSettingBlocks } from '../results/nccl-settings.js';
import { shownStatus } from '../results/expectation.js';
import { READABLE_SPREAD, speedupSpread, type SpeedupSpread } from '../results/speedup-spread.js';
import { formatMicroseconds as us, isBookkeeping, RESULT_COLUMNS, resultTexts } from '../results/results-table.js';
import { COLLECTIVE_DESCRIPTORS } from '../ops/index.js';
import type { Plan, PlanAction } from '../plan/types.js';
import type { BackendName } from '../run/rank/protocol.js';
import type { CompareRecord, Environment, RunRecord, StepRecord } from '../run/record/record.js';
import { modelSummary, sweepModel, type SweepModel, type SweepModelRow } from '../learn/sweep-model.js';
import { wrapWords } from '../data/wrap.js';
import { pairErrorWord, pairsView, type PairsCell, type PairsMatrix } from '../results/pairs.js';
import { hostLines, hostOfRank, rankOrder } from '../results/hosts.js';
import { formatBandwidth, formatBytes } from '../data/units.js';
import { bandwidthTime } from '../data/stats.js';
import { describeLoopStall, loopStalls } from '../run/rank/loop-host.js';
import { describeChoice, oneChoice, type NcclStepSummary } from '../run/nccl/nccl-step-info.js';
import { graphLaunched } from '../learn/launch.js';
import { describeRan } from '../run/nccl/nccl-kernels.js';

export const PASS = '✓';
export const FAIL = '✗';

function describeAction(a: PlanAction): string {
  switch (a.kind) {
    case 'collective': {
      const d = COLLECTIVE_DESCRIPTORS[a.op];
      return [d.reduces ? a.redop : null, d.rooted ? `(root ${a.root})` : null].filter(Boolean).join(' ');
    }
    case 'object':
      return a.op === 'all_gather_object' ? '' : `(root ${a.root})`;
    default:
      return '';
  }
}

export function stepTitle(step: StepRecord): string {
  const extra = describeAction(step.action);
  return extra ? `${step.label} ${extra}` : step.label;
}

function elementsOf(a: PlanAction): string | null {
  if (a.kind === 'collective' || a.kind === 'p2p' || a.kind === 'pair') return `${a.count} × ${a.dtype}`;
  return null;
}

/** `[Rank 1] all_reduce sum: [2, 4, 6] ✓`, one per rank. */
export function resultLines(step: StepRecord): string[] {
  const title = stepTitle(step);
  return step.ranks.map((r) => {
    const head = `[Rank ${r.rank}] ${title}`;
    if (r.verdict === 'none') {
      const t = r.timesUs.length ? ` (${us(r.timesUs.reduce((a, b) => a + b, 0) / r.timesUs.length)} µs)` : '';
      return `${head}: ${r.note ?? 'done'}${t}`;
    }
    const mark = r.verdict === 'pass' ? PASS : FAIL;
    if (r.output !== null && r.verdict === 'pass') return `${head}: ${r.output} ${mark}`;
    const size = elementsOf(step.action);
    const summary = r.wrong === 0 ? `${r.checked} checked` : `${r.wrong} of ${r.checked} wrong`;
    const firsts = r.mismatches.map((m) => `[${m.index}] expected ${m.expected} got ${m.actual}`).join('; ');
    return `${head}${size ? ` (${size})` : ''}: ${r.output !== null ? `${r.output} ` : ''}${summary}${firsts ? `: ${firsts}` : ''} ${mark}`;
  });
}

/** One line of timing for a step with timed iterations. */
export function timingLine(step: StepRecord): string | null {
  if (!step.timing || isBookkeeping(step)) return null;
  const t = step.timing;
  const bw =
    step.algbw !== null && step.bytes > 0
      ? `, ${formatBytes(step.bytes)}: algbw ${formatBandwidth(step.algbw)}${step.busbw !== null ? `, busbw ${formatBandwidth(step.busbw)}` : ''}`
      : '';
  const fl = step.flops ? `, ${(step.flops / (bandwidthTime(t) * 1e3)).toFixed(2)} GFLOP/s` : '';
  // Graph-launched, time per op is the replay's and the iterations' own times were host-launched: both said.
  const loop =
    t.perOp !== undefined && graphLaunched(step)
      ? `; ${us(t.perOp)} µs per op in a CUDA graph's replay (launch "graph"), the iterations host-launched`
      : t.perOp !== undefined && Math.abs(t.perOp - t.mean) > 0.05 * t.mean
        ? `; ${us(t.perOp)} µs per op over the loop, as nccl-tests times`
        : '';
  return `    time ${us(t.mean)} µs mean (min ${us(t.min)}, median ${us(t.median)}, max ${us(t.max)}, n=${t.samples}${loop})${bw}${fl}`;
}

/** What NCCL ran the step on (a symmetric kernel, its usual ones, copy engines: nccl-kernels.ts), under the timing line; null where nothing says. */
export function ranLine(step: StepRecord): string | null {
  const ran = describeRan(step);
  return ran === null ? null : `    ran on ${ran}`;
}

/** The plain steps' ran lines, each after its step's title: for steps printed before the record said (`clab run`). */
export function stepRanLines(steps: readonly StepRecord[]): string[] {
  return steps.flatMap((s) => {
    const ran = s.origin.kind === 'step' ? describeRan(s) : null;
    return ran === null ? [] : [`${stepTitle(s)}: ran on ${ran}`];
  });
}

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

const pad = (s: string, n: number) => s.padStart(n);

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

export function pairsMatrix(record: Pick<RunRecord, 'plan' | 'steps' | 'environment' | 'hosts'>, pairs: number): string[] {
  const view = pairsView(record, pairs, formatBytes);
  const { spec, world } = view;
  const width = 11;
  // Ranks from several hosts: rows and columns host by host, each rank labelled with its host.
  const order = rankOrder(record, world);
  const several = new Set(order.map((r) => hostOfRank(record, r))).size > 1;
  const label = (r: number) => (several ? `${r} ${hostOfRank(record, r)}`.slice(0, width - 1) : String(r));
  const cell = (m: PairsMatrix, c: PairsCell): string => {
    switch (c.kind) {
      case 'self':
        return '-';
      case 'not-measured':
        return '';
      case 'unfinished':
        return c.step.verdict === 'stopped' ? 'stopped' : 'not run';
      case 'error':
        return pairErrorWord(c.error?.code);
      case 'measured':
        return c.value === null ? 'n/a' : m.unit === 'µs' ? us(c.value) : c.value >= 0.01 ? c.value.toFixed(2) : c.value.toPrecision(2);
    }
  };
  const table = (m: PairsMatrix) => [
    `# ${m.title}`,
    `${pad('from \\ to', several ? width : 10)}${order.map((j) => pad(label(j), width)).join('')}`,
    ...order.map((i) => `${pad(label(i), several ? width : 10)}${order.map((j) => pad(cell(m, m.rows[i][j]), width)).join('')}`),
  ];
  const failed = view.failures.length;
  const how = view.links.find((l) => l.how)?.how;
  const lines = [
    `# ${spec.label} (${spec.path}), ${formatBytes(spec.bytes)}${view.both ? ' each way at once (cells i,j and j,i: one exchange)' : ' one way: rows send, columns receive'}; ` +
      `${view.pairsMeasured - failed} of ${view.pairsMeasured} pair${view.pairsMeasured === 1 ? '' : 's'} measured${failed ? `, ${failed} failed` : ''}`,
    ...view.matrices.flatMap(table),
  ];
  if (how) lines.push(`# plain copy: ${how}`);
  const links = view.links.filter((l) => l.link || l.transport);
  if (links.length) {
    lines.push("# each pair: link, NCCL transport, share of the link's one-way peak");
    for (const l of links) {
      const peak = l.link?.peakGBps ? ` of ${+l.link.peakGBps.toFixed(1)} GB/s (${l.link.peakFrom})` : '';
      const share = l.share !== null ? `send/recv ${(100 * l.share).toFixed(0)} %${peak}` : '';
      const copyShare = l.copyShare !== null ? `, copy ${(100 * l.copyShare).toFixed(0)} %` : '';
      const between = hostOfRank(record, l.from) !== hostOfRank(record, l.to) ? 'hosts' : null;
      lines.push(
        `#   ${l.from}${view.both ? '⇄' : '→'}${l.to}  ${(l.link?.text ?? between ?? (record.environment.backend === 'cpu' ? 'host' : '?')).padEnd(5)} ${(l.transport ?? 'transport unknown').padEnd(18)} ${share}${copyShare}`.trimEnd(),
      );
    }
  }
  for (const f of view.failures) {
    const e = f.error;
    lines.push(`# pair ${f.from}${view.both ? '⇄' : '→'}${f.to} failed${e ? ` on rank ${e.rank}: ${e.code}: ${e.message}` : ''}`);
    for (const w of e?.warnings ?? []) lines.push(`#     ${w}`);
    for (const h of e?.hints ?? []) lines.push(`#   hint: ${h}`);
  }
  for (const m of view.matrices) {
    for (const c of m.rows.flat())
      if (c.kind === 'measured' && c.step.verdict === 'fail') lines.push(`# ${c.step.label}: ${c.step.wrong} wrong`);
  }
  return lines;
}

type CompareVariant = CompareRecord['variants'][number];

/** A later variant's comm and compute times against the first's: what running them together cost each. */
function sharingLine(v: CompareVariant, first: CompareVariant): string[] {
  const part = (label: string, x: number | null | undefined, base: number | null | undefined) =>
    x && base ? `${label} ${us(x)} µs (×${(x / base).toFixed(2)})` : null;
  const parts = [part('comm', v.commUs, first.commUs), part('compute', v.computeUs, first.computeUs)].filter(
    (p): p is string => p !== null,
  );
  return parts.length ? [`  ${''.padEnd(12)} ${parts.join(', ')} against ${first.name}`] : [];
}

type Ideal = NonNullable<CompareRecord['ideal']>;

/**
 * What running together cost a variant against the same work alone: its transfer against a serial
 * variant's of the same transport (the fastest transfer alone where none), its multiply against the
 * multiply alone.
 */
function costLine(v: CompareVariant, variants: CompareVariant[], ideal: Ideal, width: number): string[] {
  const alone = variants.find((o) => o.serial && o.transport === v.transport && o.commUs);
  const commBase = alone ? { us: alone.commUs!, from: alone.name } : { us: ideal.commUs, from: ideal.commFrom };
  const parts = [
    v.commUs ? `transfer ${us(v.commUs)} µs (×${(v.commUs / commBase.us).toFixed(2)} against ${commBase.from})` : null,
    v.computeUs ? `GEMM ${us(v.computeUs)} µs (×${(v.computeUs / ideal.computeUs).toFixed(2)} against alone)` : null,
  ].filter((p): p is string => p !== null);
  const lines = parts.length ? [`  ${''.padEnd(width)} ${parts.join(', ')}`] : [];
  // The rest of the block beside the multiply: what keeps a variant from the ideal besides a slower GEMM.
  if (v.computeStartUs !== undefined && v.afterComputeUs !== undefined) {
    // Both are medians over the repeats, as the block's time is, each of its own: where repeats
    // differ widely, the multiply's median start can pass the block's median time. A start cannot
    // lie past the block: said as what it is, not as a place in the block.
    if (v.durationUs !== null && v.computeStartUs >= v.durationUs) {
      lines.push(
        `  ${''.padEnd(width)} the GEMM began late in the block: its median start over the repeats (${us(v.computeStartUs)} µs) is past the block's median time (${us(v.durationUs)} µs), so the repeats differ too much to say where`,
      );
    } else {
      const end = v.afterComputeUs < 0.05 ? 'and ended it' : `and the block ended ${us(v.afterComputeUs)} µs after it`;
      lines.push(`  ${''.padEnd(width)} the GEMM began ${us(v.computeStartUs)} µs into the block ${end}`);
    }
  }
  return lines;
}

/**
 * The overlap lesson recorded on 2 × H200 (overlap-gpu.scenario.json's variants, repeats within
 * ×1.1 of each other), in the repository: replayed by `clab replay`, opened by the app's Open….
 */
export const OVERLAP_LESSON_RECORD = 'docs/records/overlap-gpu-variants-h200x2.run.json';

/** How much slower a multiply beside communication may be before the summary explains why. */
const SLOWER_COMPUTE = 1.05;

/**
 * A compare block's summary. `backend` (the run's): on GPUs, a later variant whose multiply ran
 * slower than the first's gets a line on why (measured on an H100: a GEMM's time goes as the SMs
 * it gets, 633 µs on 132, ×1.27 on 100, ×3.78 on 33). Where serial variants measured the transfer
 * and the multiply alone (newer records), every variant is held against the true ideal: the longer
 * of the fastest transfer alone and the multiply alone. With the run's `plan`, a block run on cpu
 * whose variants differ only in NCCL's settings says first that they ran alike.
 */
export function compareSummary(c: CompareRecord, backend?: BackendName, plan?: Pick<Plan, 'steps'>): string[] {
  const lines = [`# ${c.label}`];
  if (backend === 'cpu' && plan && ncclSettingBlocks(plan).has(c.index)) lines.push(`  ${CPU_RUNS_NCCL_SETTINGS_ALIKE}`);
  if (c.variants.every((v) => v.repeatsUs.length === 0)) return [...lines, '  not measured: the run ended before this block ran'];
  const [first] = c.variants;
  const ideal = c.ideal ?? null;
  const width = Math.max(12, ...c.variants.map((v) => v.name.length));
  const noisy: SpeedupSpread[] = [];
  for (const v of c.variants) {
    const against = ideal && v.durationUs !== null ? `  ×${(v.durationUs / ideal.us).toFixed(2)} the ideal` : '';
    if (v.refused) {
      lines.push(`  ${v.name.padEnd(width)} refused: ${v.refused}`);
      continue;
    }
    const spread = v === first ? null : speedupSpread(first.repeatsUs, v.repeatsUs);
    if (spread && !spread.readable) noisy.push(spread);
    const repeats =
      v.repeatsUs.length > 1
        ? `  (${v.repeatsUs.length} repeats: ${us(Math.min(...v.repeatsUs))}–${us(Math.max(...v.repeatsUs))} µs${spread ? `; speed-up ${speedupRange(spread)}` : ''})`
        : '';
    lines.push(
      `  ${v.name.padEnd(width)} ${v.durationUs === null ? 'n/a' : `${us(v.durationUs)} µs`}${v.speedup !== null ? `  speed-up ×${v.speedup.toFixed(2)}` : ''}${against}${v.nccl ? `  NCCL: ${v.nccl}` : ''}${repeats}`,
    );
    if (ideal) {
      if (!v.serial) lines.push(...costLine(v, c.variants, ideal, width));
    } else if (v !== first) {
      lines.push(...sharingLine(v, first));
    }
    const base = ideal ? ideal.computeUs : v === first ? null : first.computeUs;
    const slower = v.computeUs && base ? v.computeUs / base : 0;
    if (backend === 'nccl' && slower >= SLOWER_COMPUTE && v.transport !== 'copy-engine') {
      lines.push(
        `  ${''.padEnd(width)} the multiply took ×${slower.toFixed(2)} beside the communication: a GEMM's time goes as the SMs it gets, and NCCL's kernels held some (fewer with "registerBuffers" and NCCL_MAX_P2P_NCHANNELS; none with "transport": "copy-engine")`,
      );
    }
  }
  if (ideal) {
    lines.push(
      `  ideal ${us(ideal.us)} µs: the longer of the fastest transfer alone (${us(ideal.commUs)} µs, ${ideal.commFrom}) and the GEMM alone${backend === 'nccl' ? ' on all SMs' : ''} (${us(ideal.computeUs)} µs, ${ideal.computeFrom}), measured in this run`,
    );
  }
  if (c.commUs !== null && c.computeUs !== null) {
    lines.push(
      `  comm ${us(c.commUs)} µs + compute ${us(c.computeUs)} µs; ideal overlap speed-up ×${c.idealSpeedup?.toFixed(2) ?? 'n/a'} (comm + compute vs max(comm, compute))`,
    );
  }
  if (noisy.length) {
    const widest = noisy.reduce((a, b) => (b.high / b.low > a.high / a.low ? b : a));
    lines.push(
      `  ⚠ too noisy to read: the speed-up ranges ${speedupRange(widest)} over the repeats (its ends more than ×${READABLE_SPREAD} apart), so the median says little; ` +
        `more "repeat", or a machine with fewer other jobs${backend === 'cpu' ? ' (cpu ranks share its cores)' : ''}, narrows it`,
    );
    // A block that multiplies beside its transfers: the lesson, measured where nothing else ran.
    if (c.variants.some((v) => v.computeUs))
      lines.push(`  the same lesson measured on 2 × H200 with nothing else running: ${OVERLAP_LESSON_RECORD}`);
  }
  return lines;
}

const speedupRange = (s: SpeedupSpread) => `×${s.low.toFixed(2)}–×${s.high.toFixed(2)}`;

/** The whole report of a run, as `clab run` prints it at the end and `clab replay` prints it. */
export function runReport(record: RunRecord): string[] {
  const out: string[] = [];
  const { plan } = record;
  const printedSweeps = new Set<number>();
  const printedPairs = new Set<number>();
  for (const step of record.steps) {
    const o = step.origin;
    if (o.kind === 'sweep') {
      if (!printedSweeps.has(o.sweep)) {
        printedSweeps.add(o.sweep);
        out.push(...sweepTable(plan, record.steps, o.sweep, record.environment));
      }
      continue;
    }
    if (o.kind === 'pairs') {
      if (!printedPairs.has(o.pairs)) {
        printedPairs.add(o.pairs);
        out.push(...pairsMatrix(record, o.pairs));
      }
      continue;
    }
    if (o.kind === 'compare' || step.action.kind === 'wait') continue;
    out.push(...resultLines(step));
    const t = timingLine(step);
    if (t) out.push(t);
    const ran = ranLine(step);
    if (ran) out.push(ran);
  }
  for (const c of record.compares) out.push(...compareSummary(c, record.environment.backend, record.plan));
  out.push(...hostLines(record));
  return out;
}

export function statusLine(record: RunRecord): string {
  const checked = record.steps.filter((s) => s.verdict === 'pass' || s.verdict === 'fail');
  const failed = checked.filter((s) => s.verdict === 'fail');
  const stopped = record.steps.filter((s) => s.verdict === 'stopped').length;
  const pairs = record.plan.pairs.map((_, i) => pairsView(record, i, formatBytes)).filter((v) => v.failures.length);
  const pairsFailed = pairs.length
    ? `, ${pairs.map((v) => `${v.failures.length} of ${v.pairsMeasured} pairs failed in ${v.spec.path}${v.failures.every((f) => f.error?.injected) ? ' (injected)' : ''}`).join(', ')}`
    : '';
  const counts = checked.length ? `${checked.length - failed.length}/${checked.length} checked steps correct` : 'no step checked';
  const base = `${counts} on ${record.world} rank${record.world === 1 ? '' : 's'} (${record.environment.backend})${pairsFailed}${stopped ? `, ${stopped} step${stopped === 1 ? '' : 's'} stopped in flight` : ''}`;
  // A run meant to fail reads by whether it failed as meant (shared/results/expectation.ts).
  const e = record.expectation;
  const word = shownStatus(record).toUpperCase();
  return [`${word}: ${e ? `${e.note}; ` : ''}${base}`, record.error?.message].filter(Boolean).join('; ');
}
