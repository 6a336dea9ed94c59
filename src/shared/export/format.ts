// Text views of results: the per-rank lines a learner reads and the run report that gathers them
// with the sweep tables (sweep-text.ts), pair matrices (pairs-text.ts) and compare summaries
// (compare-text.ts). Pure, so the CLI, replay and tests share them.
import { shownStatus } from '../results/expectation.js';
import { formatMicroseconds as us, isBookkeeping } from '../results/results-table.js';
import { COLLECTIVE_DESCRIPTORS } from '../ops/index.js';
import type { PlanAction } from '../plan/types.js';
import type { RunRecord, StepRecord } from '../run/record/record.js';
import { pairsView } from '../results/pairs.js';
import { runParts } from '../results/run-parts.js';
import { hostLines } from '../results/hosts.js';
import { formatBandwidth, formatBytes } from '../data/units.js';
import { bandwidthTime } from '../data/stats.js';
import { graphLaunched } from '../learn/launch.js';
import { describeRan } from '../run/nccl/nccl-kernels.js';
import { sweepTable } from './sweep-text.js';
import { pairsMatrix } from './pairs-text.js';
import { compareSummary } from './compare-text.js';

export * from './sweep-text.js';
export * from './pairs-text.js';
export * from './compare-text.js';

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

/** The whole report of a run, as `clab run` prints it at the end and `clab replay` prints it. */
export function runReport(record: RunRecord): string[] {
  const out: string[] = [];
  const { plan } = record;
  for (const part of runParts(record)) {
    if (part.kind === 'sweep') out.push(...sweepTable(plan, record.steps, part.sweep, record.environment));
    else if (part.kind === 'pairs') out.push(...pairsMatrix(record, part.pairs));
    else {
      const { step } = part;
      if (step.origin.kind === 'compare' || step.action.kind === 'wait') continue;
      out.push(...resultLines(step));
      const t = timingLine(step);
      if (t) out.push(t);
      const ran = ranLine(step);
      if (ran) out.push(ran);
    }
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
