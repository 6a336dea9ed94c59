// The nccl-tests results table, defined once: the columns, each step's values as numbers, the
// text nccl-tests would print for them, and the table as CSV and JSON. The CLI's sweep rows and
// the results view both read these columns.
import { DTYPE_INFO, type Dtype } from '../data/dtypes.js';
import { COLLECTIVE_DESCRIPTORS } from '../ops/index.js';
import type { CollectiveAction, P2pAction, PlanAction } from '../plan/types.js';
import type { RunRecord, StepRecord } from '../run/record/record.js';
import { bandwidthTime } from '../data/stats.js';
import { describeChoice } from '../run/nccl/nccl-step-info.js';
import { busiestSender, itemAlgBytes } from '../run/record/aggregate.js';

export type ResultColumnId = 'size' | 'count' | 'type' | 'redop' | 'root' | 'time' | 'algbw' | 'busbw' | 'wrong';

export interface ResultColumn {
  id: ResultColumnId;
  title: string;
  /** As nccl-tests prints it under the title, e.g. "(GB/s)"; empty where the column has none. */
  unit: string;
  /** The unit as the app shows it, where nccl-tests' ASCII differs: µs, as everywhere else in the app. */
  shownUnit?: string;
  /** Characters the text table gives the column (right-aligned, nccl-tests' widths). */
  width: number;
  numeric: boolean;
}

export const RESULT_COLUMNS: readonly ResultColumn[] = [
  { id: 'size', title: 'size', unit: '(B)', width: 12, numeric: true },
  { id: 'count', title: 'count', unit: '(elements)', width: 14, numeric: true },
  { id: 'type', title: 'type', unit: '', width: 10, numeric: false },
  { id: 'redop', title: 'redop', unit: '', width: 8, numeric: false },
  { id: 'root', title: 'root', unit: '', width: 6, numeric: true },
  { id: 'time', title: 'time', unit: '(us)', shownUnit: '(µs)', width: 10, numeric: true },
  { id: 'algbw', title: 'algbw', unit: '(GB/s)', width: 9, numeric: true },
  { id: 'busbw', title: 'busbw', unit: '(GB/s)', width: 9, numeric: true },
  { id: 'wrong', title: '#wrong', unit: '', width: 8, numeric: false },
];

/** One step's values; null where the column does not apply or nothing was measured. */
export interface ResultCells {
  /** Bytes behind algbw (nccl-tests' size). */
  size: number;
  count: number | null;
  /** The element type; "mixed" for a group of several types. */
  type: Dtype | 'mixed' | null;
  /** nccl-tests prints "none" where the operation does not reduce. */
  redop: string;
  /** nccl-tests prints -1 where the operation has no root (the CSV and JSON keep it; the tables print "-"). */
  root: number;
  /** Microseconds per op (nccl-tests' time). */
  time: number | null;
  /** GB/s. */
  algbw: number | null;
  busbw: number | null;
  /** Wrong elements over all ranks; null where the step did not finish (error, stopped, not run). */
  wrong: number | null;
}

/**
 * The op a step ran, as the CSV, comparisons, the trace and the timeline name it: a group of one
 * kind of op reads as that op (a batch of sends is send/recv), compare block markers as "block".
 */
export function stepOp(action: PlanAction): string {
  switch (action.kind) {
    case 'collective':
    case 'object':
      return action.op;
    case 'p2p':
      return 'send/recv';
    case 'pair':
      return action.measure === 'copy' ? 'copy' : 'send/recv';
    case 'group': {
      const ops = new Set(action.items.map((i) => (i.kind === 'p2p' ? 'send/recv' : i.op)));
      return ops.size === 1 ? [...ops][0] : 'group';
    }
    case 'block-begin':
    case 'block-end':
      return 'block';
    default:
      return action.kind;
  }
}

/** Waits and block markers keep the plan's order; they are not results of their own. */
export const isBookkeeping = (step: StepRecord): boolean =>
  step.action.kind === 'wait' || step.action.kind === 'block-begin' || step.action.kind === 'block-end';

type TensorItem = CollectiveAction | P2pAction;

/** Bounds the search for the world a group's bytes were counted for (the CLI allows 64 ranks). */
const LARGEST_WORLD = 1024;

/**
 * nccl-tests' count is size over the element size; a group's is that sum over its items, each
 * with its own type. The record keeps the group's total bytes but not the world they were counted
 * for (an all_gather item's bytes grow with it), so that world is the one at which the items'
 * bytes add up to the recorded total.
 */
function groupElements(items: TensorItem[], bytes: number): number | null {
  for (let world = 1; world <= LARGEST_WORLD; world++) {
    const total = items.reduce((s, i) => s + itemAlgBytes(i, world), 0);
    if (total === bytes) return items.reduce((s, i) => s + itemAlgBytes(i, world, 1), 0);
    if (total > bytes) break;
  }
  return null;
}

function typeOf(action: PlanAction): ResultCells['type'] {
  if (action.kind === 'collective' || action.kind === 'p2p' || action.kind === 'pair') return action.dtype;
  if (action.kind !== 'group' || action.items.length === 0) return null;
  const types = new Set(action.items.map((i) => i.dtype));
  return types.size === 1 ? action.items[0].dtype : 'mixed';
}

function countOf(step: StepRecord): number | null {
  const a = step.action;
  if (a.kind === 'collective' || a.kind === 'p2p' || a.kind === 'pair') return Math.round(step.bytes / DTYPE_INFO[a.dtype].bytes);
  // Sends only: the busiest sender's elements, as its bytes are the group's (nccl-tests' sendrecv).
  if (a.kind === 'group') return busiestSender(a.items)?.count ?? groupElements(a.items, step.bytes);
  return null;
}

const FINISHED: ReadonlySet<StepRecord['verdict']> = new Set(['pass', 'fail', 'none']);

export function resultCells(step: StepRecord): ResultCells {
  const a = step.action;
  const collective = a.kind === 'collective' ? COLLECTIVE_DESCRIPTORS[a.op] : null;
  return {
    size: step.bytes,
    count: countOf(step),
    type: typeOf(a),
    redop: a.kind === 'collective' && collective!.reduces ? a.redop : 'none',
    root: a.kind === 'collective' && collective!.rooted ? a.root : -1,
    time: step.timing ? bandwidthTime(step.timing) : null,
    algbw: step.algbw,
    busbw: step.busbw,
    wrong: FINISHED.has(step.verdict) ? step.wrong : null,
  };
}

/** Microseconds with the digits nccl-tests-style tables show. */
export const formatMicroseconds = (x: number): string => (x >= 1000 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

/** Each column as nccl-tests prints it ("n/a" where nothing was measured). */
export function resultTexts(step: StepRecord): Record<ResultColumnId, string> {
  const c = resultCells(step);
  const gbs = (x: number | null) => x?.toFixed(2) ?? 'n/a';
  return {
    size: String(c.size),
    count: c.count === null ? 'n/a' : String(c.count),
    type: c.type ?? '-',
    redop: c.redop,
    // A root of -1 reads as a rank that does not exist: "-", as for a step without a type.
    root: c.root < 0 ? '-' : String(c.root),
    time: c.time === null ? 'n/a' : formatMicroseconds(c.time),
    algbw: gbs(c.algbw),
    busbw: gbs(c.busbw),
    // An unfinished step says why in place of a count, as the CLI always has for errors.
    wrong: c.wrong === null ? (step.verdict === 'not-run' ? 'n/a' : step.verdict) : String(c.wrong),
  };
}

/** NCCL's own choice where the profiler plug-in saw the step (null elsewhere): after nccl-tests' columns. */
export interface NcclCells {
  /** One value, or "varied (RING×18, TREE×2)". */
  ncclAlgo: string | null;
  ncclProto: string | null;
  ncclChannels: string | null;
  /** A call's median span on the GPU from its channels' kernels, µs. */
  kernelUs: number | null;
  /** NCCL's predicted time for its choice (the tuner's cost table), µs. */
  ncclPredictedUs: number | null;
}

export function ncclCells(step: StepRecord): NcclCells {
  const n = step.nccl;
  return {
    ncclAlgo: n ? describeChoice(n.algo) : null,
    ncclProto: n ? describeChoice(n.proto) : null,
    ncclChannels: n ? describeChoice(n.nChannels) : null,
    kernelUs: n?.kernelMedianUs ?? null,
    ncclPredictedUs: n?.predictedChosenUs ?? null,
  };
}

/** One table row for each step that has results of its own, in the order they ran. */
export interface ResultRow extends ResultCells, NcclCells {
  step: number;
  label: string;
  op: string;
  verdict: StepRecord['verdict'];
}

export function resultsJson(record: RunRecord): ResultRow[] {
  return record.steps
    .filter((s) => !isBookkeeping(s))
    .map((s) => ({ step: s.index, label: s.label, op: stepOp(s.action), ...resultCells(s), verdict: s.verdict, ...ncclCells(s) }));
}

/** RFC 4180: a field holding a comma, quote or line break is quoted, its quotes doubled. */
const csvField = (v: string | number | null): string => {
  const s = v === null ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

const CSV_HEADER = [
  'step',
  'label',
  'op',
  ...RESULT_COLUMNS.map((c) => (c.unit ? `${c.title} ${c.unit}` : c.title)),
  'verdict',
  'nccl algo',
  'nccl proto',
  'nccl channels',
  'kernel (us)',
  'nccl predicted (us)',
];

/** Decimals the CSV keeps: time to the nanosecond (the clocks' unit), bandwidth to 0.1 MB/s. */
const CSV_DECIMALS: Partial<Record<ResultColumnId, number>> = { time: 3, algbw: 4, busbw: 4 };

/** A number as the CSV gives it: rounded to its column's decimals, without trailing zeros. */
const csvNumber = (id: ResultColumnId, v: string | number | null) =>
  typeof v === 'number' && CSV_DECIMALS[id] !== undefined ? Number(v.toFixed(CSV_DECIMALS[id])) : v;

/** The table as CSV: numbers to what was measured (µs to the ns, GB/s), empty cells where nothing applies. */
export function resultsCsv(record: RunRecord): string {
  const rows = resultsJson(record).map((r) => [
    r.step,
    r.label,
    r.op,
    ...RESULT_COLUMNS.map((c) => csvNumber(c.id, r[c.id])),
    r.verdict,
    r.ncclAlgo,
    r.ncclProto,
    r.ncclChannels,
    r.kernelUs,
    r.ncclPredictedUs,
  ]);
  return [CSV_HEADER, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}
