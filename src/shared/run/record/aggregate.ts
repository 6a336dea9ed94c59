// Turns per-rank step results into the step record: verdict, timing across ranks, bandwidth.
import { DTYPE_INFO } from '../../data/dtypes.js';
import { COLLECTIVE_DESCRIPTORS, p2pAlgBytes, p2pBusFactor } from '../../ops/index.js';
import type { CollectiveAction, P2pAction, Plan, PlanAction, PlanStep } from '../../plan/types.js';
import type { RankStepResult, TimelineEvent } from '../rank/protocol.js';
import { STREAM_PHASES } from '../rank/timeline-event.js';
import { mergeStepInfos, shortChoice } from '../nccl/nccl-step-info.js';
import type { CompareRecord, RunRecord, StepRecord } from './record.js';
import { algBandwidth, bandwidthTime, iterationTimesAcrossRanks, perOpTime, timingStats } from '../../data/stats.js';

/**
 * An item's bytes as nccl-tests counts them for algbw, at `elementBytes` an element (its type's
 * unless given: the results table counts elements with 1).
 */
export function itemAlgBytes(item: CollectiveAction | P2pAction, world: number, elementBytes = DTYPE_INFO[item.dtype].bytes): number {
  return item.kind === 'p2p'
    ? p2pAlgBytes(item.count, elementBytes)
    : COLLECTIVE_DESCRIPTORS[item.op].algBytes(item.count, elementBytes, world);
}

function itemBytes(item: CollectiveAction | P2pAction, world: number): { bytes: number; busFactor: number } {
  const busFactor = item.kind === 'p2p' ? p2pBusFactor() : COLLECTIVE_DESCRIPTORS[item.op].busFactor(world);
  return { bytes: itemAlgBytes(item, world), busFactor };
}

/**
 * A group of sends and receives counts what its busiest sender sends, as nccl-tests' sendrecv
 * counts a both-ways exchange (each rank's bytes) and as one sender's sends add up: that rank's
 * bytes and elements; null for a group with a collective in it.
 */
export function busiestSender(items: readonly (CollectiveAction | P2pAction)[]): { bytes: number; count: number } | null {
  if (!items.length || !items.every((i) => i.kind === 'p2p')) return null;
  const sent = new Map<number, { bytes: number; count: number }>();
  for (const i of items as P2pAction[]) {
    const s = sent.get(i.from) ?? { bytes: 0, count: 0 };
    sent.set(i.from, { bytes: s.bytes + p2pAlgBytes(i.count, DTYPE_INFO[i.dtype].bytes), count: s.count + i.count });
  }
  return [...sent.values()].reduce((a, b) => (b.bytes > a.bytes ? b : a));
}

/** Bytes behind algbw and the busbw factor of an action (a group adds its members' bytes; one of sends, the most a rank sends). */
export function actionBandwidthBasis(action: PlanAction, world: number): { bytes: number; busFactor: number } | null {
  switch (action.kind) {
    case 'collective':
    case 'p2p':
      return itemBytes(action, world);
    case 'pair':
      // Per direction, as nccl-tests' sendrecv counts both-ways traffic: the bytes each rank sends.
      return { bytes: p2pAlgBytes(action.count, DTYPE_INFO[action.dtype].bytes), busFactor: p2pBusFactor() };
    case 'group': {
      const sender = busiestSender(action.items);
      if (sender) return { bytes: sender.bytes, busFactor: p2pBusFactor() };
      const parts = action.items.map((i) => itemBytes(i, world));
      const bytes = parts.reduce((s, p) => s + p.bytes, 0);
      return { bytes, busFactor: bytes ? parts.reduce((s, p) => s + p.bytes * p.busFactor, 0) / bytes : 1 };
    }
    default:
      return null;
  }
}

/**
 * Bytes one call of an action moves, as its step's record counts them (the bytes behind algbw: a
 * group of sends counts its busiest sender, who sends alongside the others); 0 for what moves no tensor.
 */
export const actionBytes = (action: PlanAction, world: number): number => actionBandwidthBasis(action, world)?.bytes ?? 0;

/** Why a step was left unfinished: the run failed, or the user stopped it, while it was in flight. */
export type UnfinishedVerdict = Extract<StepRecord['verdict'], 'error' | 'stopped'>;

export function summarizeStep(
  step: PlanStep,
  results: RankStepResult[],
  world: number,
  unfinished: UnfinishedVerdict | null = null,
): StepRecord {
  const ranks = [...results].sort((a, b) => a.rank - b.rank);
  const wrong = ranks.reduce((s, r) => s + r.wrong, 0);
  const checkedAny = ranks.some((r) => r.verdict === 'pass' || r.verdict === 'fail');
  const verdict: StepRecord['verdict'] =
    unfinished ??
    (ranks.length === 0
      ? 'not-run'
      : ranks.some((r) => r.verdict === 'error')
        ? 'error'
        : wrong > 0 || ranks.some((r) => r.verdict === 'fail')
          ? 'fail'
          : checkedAny
            ? 'pass'
            : 'none');
  const timing = timingStats(iterationTimesAcrossRanks(ranks.map((r) => r.timesUs)));
  const timedRanks = ranks.filter((r) => r.timesUs.length > 0);
  const perOp = timing
    ? perOpTime(
        timedRanks.map((r) => r.loopUs ?? r.spanUs),
        timing.samples,
      )
    : undefined;
  if (timing && perOp !== undefined) timing.perOp = perOp;
  const basis = actionBandwidthBasis(step.action, world);
  const algbw = basis && timing ? algBandwidth(basis.bytes, bandwidthTime(timing)) : null;
  const a = step.action;
  const nccl = mergeStepInfos(ranks.flatMap((r) => (r.nccl ? [r.nccl] : [])));
  return {
    index: step.index,
    path: step.path,
    label: step.label,
    origin: step.origin,
    action: step.action,
    verdict,
    wrong,
    ranks,
    timing,
    bytes: basis?.bytes ?? 0,
    algbw,
    busbw: algbw !== null && basis ? algbw * basis.busFactor : null,
    flops: a.kind === 'compute' ? 2 * a.m * a.n * a.k : null,
    ...(nccl ? { nccl } : {}),
  };
}

const median = (xs: number[]): number | null => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const maxOverRanks = (r: StepRecord) => (r.ranks.length ? Math.max(...r.ranks.map((x) => x.timesUs.reduce((a, b) => a + b, 0))) : 0);

/** A variant's own steps (its first run), without the block's markers. */
function variantSteps(plan: Plan, compare: number, variant: string): PlanStep[] {
  const first = Math.min(
    ...plan.steps
      .filter((s) => s.origin.kind === 'compare' && s.origin.compare === compare && s.origin.variant === variant)
      .map((s) => (s.origin as { repeat: number }).repeat),
  );
  return plan.steps.filter(
    (s) =>
      s.origin.kind === 'compare' &&
      s.origin.compare === compare &&
      s.origin.variant === variant &&
      s.origin.repeat === first &&
      s.action.kind !== 'block-begin' &&
      s.action.kind !== 'block-end',
  );
}

/** How a variant's transfers move: "nccl", "copy-engine", or "nccl+copy-engine". */
export function variantTransport(steps: PlanStep[]): string {
  const kinds = new Set<string>();
  for (const s of steps) {
    const a = s.action;
    const items = a.kind === 'group' ? a.items : a.kind === 'p2p' || a.kind === 'collective' ? [a] : [];
    for (const i of items) kinds.add(i.kind === 'p2p' && i.transport === 'copy-engine' ? 'copy-engine' : 'nccl');
  }
  return [...kinds].sort().reverse().join('+') || 'none';
}

/** Whether a variant runs its steps one after another: one stream, nothing async. */
export function variantSerial(steps: PlanStep[]): boolean {
  const work = steps.filter((s) => s.action.kind !== 'wait');
  return work.length > 0 && work.every((s) => !s.async && s.stream === work[0].stream);
}

/** One rank's span of a variant's repeat, and of its multiplies in it (CLOCK_MONOTONIC ns). */
interface RankSpan {
  start: number;
  end: number;
  computeStart: number;
  computeEnd: number;
}

/**
 * Every rank's span of each repeat of each compare variant, from the ops' events on its streams
 * (as the rank times the block: its first op's start to its last op's end), by
 * "compare/variant/repeat" and rank. One pass over the events.
 */
function blockSpans(steps: StepRecord[], events: readonly TimelineEvent[]): Map<string, Map<number, RankSpan>> {
  const inBlock = new Map<number, { key: string; compute: boolean }>();
  for (const s of steps) {
    const o = s.origin;
    if (o.kind !== 'compare' || o.repeat < 0 || s.action.kind === 'block-begin' || s.action.kind === 'block-end') continue;
    inBlock.set(s.index, { key: `${o.compare}/${o.variant}/${o.repeat}`, compute: s.action.kind === 'compute' });
  }
  const spans = new Map<string, Map<number, RankSpan>>();
  for (const e of events) {
    const at = inBlock.get(e.step);
    if (!at || !STREAM_PHASES.has(e.phase)) continue;
    let ranks = spans.get(at.key);
    if (!ranks) spans.set(at.key, (ranks = new Map()));
    const span = ranks.get(e.rank) ?? { start: Infinity, end: -Infinity, computeStart: Infinity, computeEnd: -Infinity };
    span.start = Math.min(span.start, e.startNs);
    span.end = Math.max(span.end, e.endNs);
    if (at.compute) {
      span.computeStart = Math.min(span.computeStart, e.startNs);
      span.computeEnd = Math.max(span.computeEnd, e.endNs);
    }
    ranks.set(e.rank, span);
  }
  return spans;
}

/**
 * Where an overlapped variant's block went beside its multiply, on the rank whose block took
 * longest in each repeat (the one the block's time is): how long after the block began the
 * multiply began, and how long the block went on after it ended; medians over the repeats, µs.
 * null where that rank ran no multiply (the transfer was the longer side) or no events came.
 */
function multiplyInBlock(
  spans: Map<string, Map<number, RankSpan>>,
  compare: number,
  variant: string,
  repeats: number,
): { computeStartUs: number; afterComputeUs: number } | null {
  const before: number[] = [];
  const after: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const ranks = spans.get(`${compare}/${variant}/${r}`);
    if (!ranks) continue;
    const longest = [...ranks.values()].reduce((a, b) => (b.end - b.start > a.end - a.start ? b : a));
    if (!Number.isFinite(longest.computeStart)) continue;
    before.push((longest.computeStart - longest.start) / 1e3);
    after.push((longest.end - longest.computeEnd) / 1e3);
  }
  const computeStartUs = median(before);
  const afterComputeUs = median(after);
  return computeStartUs === null || afterComputeUs === null ? null : { computeStartUs, afterComputeUs };
}

/**
 * Each compare block's record from its steps: every variant's duration (median over repeats),
 * speed-up, transfer and multiply times, and the true ideal. With the run's `events`, an overlapped
 * variant also says when its multiply began in the block and how long the block went on after it.
 */
export function summarizeCompares(plan: Plan, steps: StepRecord[], events: readonly TimelineEvent[] = []): CompareRecord[] {
  const spans = events.length && plan.compares.length ? blockSpans(steps, events) : null;
  return plan.compares.map((spec) => {
    const inCompare = steps.filter((s) => s.origin.kind === 'compare' && s.origin.compare === spec.index);
    // A variant's communication or compute time: its steps of that kind summed per repeat that
    // ran (none: null, not 0), the median over those repeats.
    const timeOf = (variant: string, kind: 'comm' | 'compute') =>
      median(
        Array.from({ length: spec.repeat }, (_, r) =>
          inCompare
            .filter((s) => s.origin.kind === 'compare' && s.origin.variant === variant && s.origin.repeat === r)
            .filter((s) =>
              kind === 'compute'
                ? s.action.kind === 'compute'
                : actionBandwidthBasis(s.action, plan.world) !== null || s.action.kind === 'object',
            )
            .filter((s) => s.ranks.length > 0),
        )
          .filter((ran) => ran.length > 0)
          .map((ran) => ran.reduce((sum, s) => sum + maxOverRanks(s), 0)),
      );
    const variants = spec.variants.map((name) => {
      const ends = inCompare.filter(
        (s) => s.action.kind === 'block-end' && s.action.variant === name && s.action.repeat >= 0 && s.ranks.length > 0,
      );
      const own = variantSteps(plan, spec.index, name);
      const serial = variantSerial(own);
      const refused = inCompare
        .flatMap((s) => (s.origin.kind === 'compare' && s.origin.variant === name ? s.ranks : []))
        .find((r) => r.error)?.error?.message;
      // A refused variant ran only its other steps (the multiply alone): no duration to compare.
      const repeatsUs = refused ? [] : ends.map(maxOverRanks);
      // What NCCL chose for the variant's calls (its own communicator where it set NCCL_ALGO/NCCL_PROTO).
      const nccl = shortChoice(
        mergeStepInfos(
          inCompare
            .filter((s) => s.origin.kind === 'compare' && s.origin.variant === name)
            .flatMap((s) => s.ranks.flatMap((r) => (r.nccl ? [r.nccl] : []))),
        ) ?? undefined,
      );
      return {
        name,
        durationUs: median(repeatsUs),
        repeatsUs,
        speedup: null as number | null,
        commUs: refused ? null : timeOf(name, 'comm'),
        computeUs: refused ? null : timeOf(name, 'compute'),
        transport: variantTransport(own),
        serial,
        ...(!refused && spans && !serial ? (multiplyInBlock(spans, spec.index, name, spec.repeat) ?? {}) : {}),
        ...(refused ? { refused } : {}),
        ...(nccl ? { nccl } : {}),
      };
    });
    const base = variants[0]?.durationUs;
    for (const v of variants) v.speedup = base && v.durationUs ? base / v.durationUs : null;
    const commUs = variants[0]?.commUs ?? null;
    const computeUs = variants[0]?.computeUs ?? null;
    const idealSpeedup = commUs && computeUs ? (commUs + computeUs) / Math.max(commUs, computeUs) : null;
    return { index: spec.index, label: spec.label, variants, commUs, computeUs, idealSpeedup, ideal: trueIdeal(variants) };
  });
}

/** The fastest of the serial variants' `key` times, and which variant gave it. */
function fastestAlone(variants: CompareRecord['variants'], key: 'commUs' | 'computeUs'): { us: number; from: string } | null {
  let best: { us: number; from: string } | null = null;
  for (const v of variants) {
    const us = v[key];
    if (v.serial && us && (!best || us < best.us)) best = { us, from: v.name };
  }
  return best;
}

/** The best block of a compare: the longer of the fastest transfer alone and the multiply alone. */
export function trueIdeal(variants: CompareRecord['variants']): NonNullable<CompareRecord['ideal']> | null {
  const comm = fastestAlone(variants, 'commUs');
  const compute = fastestAlone(variants, 'computeUs');
  if (!comm || !compute) return null;
  return { us: Math.max(comm.us, compute.us), commUs: comm.us, commFrom: comm.from, computeUs: compute.us, computeFrom: compute.from };
}

/**
 * A record from before overlapped variants said where their block went beside the multiply
 * (`computeStartUs`, `afterComputeUs`): those two read from its own steps and events, nothing else
 * of it changed; a record that has them, or has no events, as it is.
 */
export function withBlockAnatomy(record: RunRecord): RunRecord {
  if (!record.compares.length || !record.events.length) return record;
  if (!record.compares.some((c) => c.variants.some((v) => v.serial === false && v.computeStartUs === undefined && !v.refused)))
    return record;
  const fresh = new Map(summarizeCompares(record.plan, record.steps, record.events).map((c) => [c.index, c]));
  return {
    ...record,
    compares: record.compares.map((c) => ({
      ...c,
      variants: c.variants.map((v) => {
        const f = fresh.get(c.index)?.variants.find((x) => x.name === v.name);
        return v.computeStartUs === undefined && f?.computeStartUs !== undefined
          ? { ...v, computeStartUs: f.computeStartUs, afterComputeUs: f.afterComputeUs }
          : v;
      }),
    })),
  };
}
