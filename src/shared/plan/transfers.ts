// Who sends to whom in a step: the trace's arrows (export/chrome-trace.ts) and the timeline's
// (renderer timeline/flows.ts) both draw one from each sender's slice to its receiver's.
import type { PlanAction } from './types.js';

/**
 * The distinct sender → receiver pairs of a step's point-to-point transfers: a p2p step, the p2p
 * items of a group (two sends between the same ranks are one pair: their slices are one), or a
 * pair's measurement (both ways where it runs both; none for a copy, which the sender makes alone).
 */
export function p2pPairs(action: PlanAction | undefined): { from: number; to: number }[] {
  if (action?.kind === 'pair') {
    if (action.measure === 'copy') return [];
    return action.both
      ? [
          { from: action.from, to: action.to },
          { from: action.to, to: action.from },
        ]
      : [{ from: action.from, to: action.to }];
  }
  const items = action?.kind === 'p2p' ? [action] : action?.kind === 'group' ? action.items : [];
  const pairs = new Map<string, { from: number; to: number }>();
  for (const i of items) if (i.kind === 'p2p') pairs.set(`${i.from}→${i.to}`, { from: i.from, to: i.to });
  return [...pairs.values()];
}
