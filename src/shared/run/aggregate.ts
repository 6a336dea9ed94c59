// Turns per-rank step results into the step record: verdict, timing across ranks, bandwidth.
import { DTYPE_INFO } from '../data/dtypes.js';
import { COLLECTIVE_DESCRIPTORS, p2pAlgBytes, p2pBusFactor } from '../ops/index.js';
import type { CollectiveAction, P2pAction, Plan, PlanAction, PlanStep } from '../plan/types.js';
import type { RankStepResult } from './protocol.js';
import { mergeStepInfos, shortChoice } from './nccl-events.js';
import type { CompareRecord, StepRecord } from './record.js';
import { algBandwidth, bandwidthTime, iterationTimesAcrossRanks, perOpTime, timingStats } from '../data/stats.js';

function itemBytes(item: CollectiveAction | P2pAction, world: number): { bytes: number; busFactor: number } {
  const b = DTYPE_INFO[item.dtype].bytes;
  if (item.kind === 'p2p') return { bytes: p2pAlgBytes(item.count, b), busFactor: p2pBusFactor() };
  const desc = COLLECTIVE_DESCRIPTORS[item.op];
  return { bytes: desc.algBytes(item.count, b, world), busFactor: desc.busFactor(world) };
}

/** Bytes behind algbw and the busbw factor of an action (a group adds its members' bytes). */
export function actionBandwidthBasis(action: PlanAction, world: number): { bytes: number; busFactor: number } | null {
  switch (action.kind) {
    case 'collective':
    case 'p2p':
      return itemBytes(action, world);
    case 'pair':
      // Per direction, as nccl-tests' sendrecv counts both-ways traffic: the bytes each rank sends.
      return { bytes: p2pAlgBytes(action.count, DTYPE_INFO[action.dtype].bytes), busFactor: p2pBusFactor() };
    case 'group': {
      const parts = action.items.map((i) => itemBytes(i, world));
      const bytes = parts.reduce((s, p) => s + p.bytes, 0);
      return { bytes, busFactor: bytes ? parts.reduce((s, p) => s + p.bytes * p.busFactor, 0) / bytes : 1 };
    }
    default:
      return null;
  }
}

/** Why a step was left unfinished: the run failed, or the user stopped it, while it was in flight. */
export type UnfinishedVerdict = Extract<StepRecord['verdict'], 'error' | 'stopped'>;

export function summarizeStep(step: PlanStep, results: RankStepResult[], world: number, unfinished: UnfinishedVerdict | null = null): StepRecord {
  const ranks = [...results].sort((a, b) => a.rank - b.rank);
  const wrong = ranks.reduce((s, r) => s + r.wrong, 0);
  const checkedAny = ranks.some((r) => r.verdict === 'pass' || r.verdict === 'fail');
  const verdict: StepRecord['verdict'] = unfinished ?? (ranks.length === 0 ? 'not-run'
    : ranks.some((r) => r.verdict === 'error') ? 'error'
    : wrong > 0 || ranks.some((r) => r.verdict === 'fail') ? 'fail' : checkedAny ? 'pass' : 'none');
  const timing = timingStats(iterationTimesAcrossRanks(ranks.map((r) => r.timesUs)));
  const timedRanks = ranks.filter((r) => r.timesUs.length > 0);
  const perOp = timing ? perOpTime(timedRanks.map((r) => r.loopUs ?? r.spanUs), timing.samples) : undefined;
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

export function summarizeCompares(plan: Plan, steps: StepRecord[]): CompareRecord[] {
  return plan.compares.map((spec) => {
    const inCompare = steps.filter((s) => s.origin.kind === 'compare' && s.origin.compare === spec.index);
    // A variant's communication or compute time: its steps of that kind summed per repeat, the median over repeats.
    const timeOf = (variant: string, kind: 'comm' | 'compute') => median(
      Array.from({ length: spec.repeat }, (_, r) =>
        inCompare
          .filter((s) => s.origin.kind === 'compare' && s.origin.variant === variant && s.origin.repeat === r)
          .filter((s) => (kind === 'compute' ? s.action.kind === 'compute' : actionBandwidthBasis(s.action, plan.world) !== null || s.action.kind === 'object'))
          .reduce((sum, s) => sum + maxOverRanks(s), 0)));
    const variants = spec.variants.map((name) => {
      const ends = inCompare.filter((s) => s.action.kind === 'block-end' && s.action.variant === name && s.action.repeat >= 0 && s.ranks.length > 0);
      const repeatsUs = ends.map(maxOverRanks);
      // What NCCL chose for the variant's calls (its own communicator where it set NCCL_ALGO/NCCL_PROTO).
      const nccl = shortChoice(mergeStepInfos(inCompare.filter((s) => s.origin.kind === 'compare' && s.origin.variant === name)
        .flatMap((s) => s.ranks.flatMap((r) => (r.nccl ? [r.nccl] : [])))) ?? undefined);
      return {
        name, durationUs: median(repeatsUs), repeatsUs, speedup: null as number | null, commUs: timeOf(name, 'comm'), computeUs: timeOf(name, 'compute'),
        ...(nccl ? { nccl } : {}),
      };
    });
    const base = variants[0]?.durationUs;
    for (const v of variants) v.speedup = base && v.durationUs ? base / v.durationUs : null;
    const commUs = variants[0]?.commUs ?? null;
    const computeUs = variants[0]?.computeUs ?? null;
    const idealSpeedup = commUs && computeUs ? (commUs + computeUs) / Math.max(commUs, computeUs) : null;
    return { index: spec.index, label: spec.label, variants, commUs, computeUs, idealSpeedup };
  });
}
