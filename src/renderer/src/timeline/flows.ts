// Arrows from each send to its matching receive. A p2p step (alone or inside a group) gives the
// sender and the receiver one event per iteration and phase; the k-th of the sender's is matched
// with the k-th of the receiver's, of the same step and phase.
import { p2pPairs } from '../../../shared/plan/transfers.js';
import type { Plan } from '../../../shared/plan/types.js';
import type { Lane, TimelineModel } from './model';
import { PHASE_INDEX } from './phases';

export interface Flow {
  /** Indices into model.lanes. */
  fromLane: number;
  toLane: number;
  /** The send starts at fromT; the data is in by toT (the receive's end). ns from the origin. */
  fromT: number;
  toT: number;
  step: number;
}

const DEVICE_PHASES = new Set([PHASE_INDEX.warmup, PHASE_INDEX.timed, PHASE_INDEX.loop, PHASE_INDEX.check]);
const PHASE_COUNT = Object.keys(PHASE_INDEX).length;

export function p2pFlows(model: TimelineModel, plan: Plan): Flow[] {
  const pairsOf = plan.steps.map((s) => p2pPairs(s.action));
  const groups = new Map<string | null, number>();
  // (group, step, phase) → rank → that rank's slices in start order, as lane, slice, lane, slice, …
  // Keyed by number: a run of 100 000 events reads every slice here once.
  const byKey = new Map<number, Map<number, number[]>>();
  model.lanes.forEach((lane: Lane, l) => {
    const s = lane.slices;
    let group = groups.get(lane.group);
    if (group === undefined) groups.set(lane.group, (group = groups.size));
    for (let i = 0; i < s.count; i++) {
      const step = s.step[i];
      if (!pairsOf[step]?.length || !DEVICE_PHASES.has(s.phase[i])) continue;
      const key = (group * pairsOf.length + step) * PHASE_COUNT + s.phase[i];
      let ranks = byKey.get(key);
      if (!ranks) byKey.set(key, (ranks = new Map()));
      let list = ranks.get(lane.rank);
      if (!list) ranks.set(lane.rank, (list = []));
      list.push(l, i);
    }
  });
  const flows: Flow[] = [];
  for (const ranks of byKey.values()) {
    const [firstLane, firstSlice] = ranks.values().next().value!;
    const step = model.lanes[firstLane].slices.step[firstSlice];
    for (const { from, to } of pairsOf[step]) {
      const sends = ranks.get(from) ?? [];
      const recvs = ranks.get(to) ?? [];
      for (let k = 0; k < Math.min(sends.length, recvs.length); k += 2) {
        const fromLane = sends[k];
        const toLane = recvs[k];
        flows.push({
          fromLane,
          toLane,
          fromT: model.lanes[fromLane].slices.start[sends[k + 1]],
          toT: model.lanes[toLane].slices.end[recvs[k + 1]],
          step,
        });
      }
    }
  }
  return flows.sort((a, b) => a.fromT - b.fromT);
}
