// Compare blocks side by side: for one compare and one repeat, each variant's events re-based to
// that variant's block start and stacked as a group of lanes, so that all variants share a time
// scale and overlap (or its absence) is seen at a glance.
import type { StepOrigin } from '../../../shared/plan/types.js';
import { formatDuration } from '../ui/units';
import { emptyModel, LaneBuilder, laneName, type TimelineModel } from './model';
import { isHostPhase } from './phases';
import type { TimelineSource } from './source';

export interface CompareChoice {
  compare: number;
  repeat: number;
}

type CompareOrigin = Extract<StepOrigin, { kind: 'compare' }>;
const compareOrigin = (o: StepOrigin): CompareOrigin | null => (o.kind === 'compare' ? o : null);

/** The repeats a compare ran, in order; negative ones are its warm-up repeats. */
export function compareRepeats(source: TimelineSource, compare: number): number[] {
  const repeats = new Set<number>();
  for (const step of source.plan.steps) {
    const o = compareOrigin(step.origin);
    if (o && o.compare === compare) repeats.add(o.repeat);
  }
  return [...repeats].sort((a, b) => a - b);
}

/** The first timed repeat where there is one: warm-up repeats carry first-call costs. */
export function defaultChoice(source: TimelineSource): CompareChoice | null {
  if (!source.plan.compares.length) return null;
  const repeats = compareRepeats(source, 0);
  return { compare: 0, repeat: repeats.find((r) => r >= 0) ?? repeats[0] ?? 0 };
}

export function loadCompare(source: TimelineSource, choice: CompareChoice): TimelineModel {
  const model = emptyModel(source);
  const variants = source.plan.compares[choice.compare]?.variants ?? [];
  // Which variant each step of this repeat belongs to.
  const variantOfStep = new Map<number, number>();
  for (const step of source.plan.steps) {
    const o = compareOrigin(step.origin);
    if (o && o.compare === choice.compare && o.repeat === choice.repeat) variantOfStep.set(step.index, variants.indexOf(o.variant));
  }
  // A variant starts where its block starts on the first rank to start it; host work (fill,
  // verify) is outside the block and left out. Its duration is the record's: the longest block
  // of any rank.
  const isBlockEnd = (step: number) => source.plan.steps[step]?.action.kind === 'block-end';
  const blockStart = variants.map(() => Infinity);
  const firstStart = variants.map(() => Infinity);
  const duration = variants.map(() => 0);
  const events = source.events;
  for (const e of events) {
    const v = variantOfStep.get(e.step);
    if (v === undefined || isHostPhase(e.phase)) continue;
    firstStart[v] = Math.min(firstStart[v], e.startNs);
    if (e.phase === 'block' && isBlockEnd(e.step)) {
      blockStart[v] = Math.min(blockStart[v], e.startNs);
      duration[v] = Math.max(duration[v], e.endNs - e.startNs);
    }
  }
  const origin = variants.map((_, v) => (blockStart[v] < Infinity ? blockStart[v] : firstStart[v]));
  const streams = source.plan.streams;
  const lanes = new LaneBuilder(model);
  events.forEach((e, i) => {
    const v = variantOfStep.get(e.step);
    if (v === undefined || isHostPhase(e.phase)) return;
    const group = `${variants[v]} · ${duration[v] > 0 ? formatDuration(duration[v]) : 'block not ended'}`;
    lanes.add(
      v * 4096 + e.rank * 16 + e.stream,
      () => ({ rank: e.rank, stream: e.stream, name: laneName(streams, e.rank, e.stream), group }),
      e,
      i,
      e.startNs - origin[v],
      e.endNs - origin[v],
    );
  });
  model.loaded = events.length;
  lanes.settle();
  return model;
}
