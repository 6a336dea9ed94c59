// Arrows from each send to its matching receive. A p2p step (alone or inside a group) gives the
// sender and the receiver one event per iteration and phase; the k-th of the sender's is matched
// with the k-th of the receiver's, of the same step and phase.
import type { Plan, PlanAction } from '../../../shared/plan/types.js';
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

/** The (from, to) pairs of a step's point-to-point transfers. */
export function p2pPairs(action: PlanAction): { from: number; to: number }[] {
  if (action.kind === 'p2p') return [{ from: action.from, to: action.to }];
  if (action.kind === 'group') return action.items.flatMap((i) => (i.kind === 'p2p' ? [{ from: i.from, to: i.to }] : []));
  // A pair's measurement (a copy is the sender's alone).
  if (action.kind === 'pair' && action.measure !== 'copy') {
    return action.both
      ? [
          { from: action.from, to: action.to },
          { from: action.to, to: action.from },
        ]
      : [{ from: action.from, to: action.to }];
  }
  return [];
}

const DEVICE_PHASES = new Set([PHASE_INDEX.warmup, PHASE_INDEX.timed, PHASE_INDEX.loop, PHASE_INDEX.check]);

export function p2pFlows(model: TimelineModel, plan: Plan): Flow[] {
  const pairsOf = plan.steps.map((s) => p2pPairs(s.action));
  // (group, step, phase) → rank → that rank's slices in start order, as [lane, slice].
  const byKey = new Map<string, Map<number, [number, number][]>>();
  model.lanes.forEach((lane: Lane, l) => {
    const s = lane.slices;
    for (let i = 0; i < s.count; i++) {
      if (!pairsOf[s.step[i]]?.length || !DEVICE_PHASES.has(s.phase[i])) continue;
      const key = `${lane.group ?? ''}|${s.step[i]}|${s.phase[i]}`;
      let ranks = byKey.get(key);
      if (!ranks) byKey.set(key, (ranks = new Map()));
      let list = ranks.get(lane.rank);
      if (!list) ranks.set(lane.rank, (list = []));
      list.push([l, i]);
    }
  });
  const flows: Flow[] = [];
  for (const ranks of byKey.values()) {
    const [[firstLane, firstSlice]] = ranks.values().next().value!;
    const step = model.lanes[firstLane].slices.step[firstSlice];
    for (const { from, to } of pairsOf[step]) {
      const sends = ranks.get(from) ?? [];
      const recvs = ranks.get(to) ?? [];
      for (let k = 0; k < Math.min(sends.length, recvs.length); k++) {
        const [fromLane, si] = sends[k];
        const [toLane, ri] = recvs[k];
        flows.push({ fromLane, toLane, fromT: model.lanes[fromLane].slices.start[si], toT: model.lanes[toLane].slices.end[ri], step });
      }
    }
  }
  return flows.sort((a, b) => a.fromT - b.fromT);
}
