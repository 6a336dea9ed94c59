// Searching the slices: those whose event name holds the query (any case), or of step #N for a
// query `#N`. Done once per query over every slice; what a frame needs is an array per lane of
// matches before each slice, so that a rectangle standing for many thin slices knows in O(1)
// whether one of them matched.
import type { TimelineModel } from './model';
import type { SliceRef } from './slices';

export interface SearchResult {
  query: string;
  /** In time order, then lane order. */
  matches: SliceRef[];
  /** Per lane: matches among slices 0..i-1 at [i] (count + 1 long); null where the lane has none. */
  before: (Int32Array | null)[];
}

export function searchSlices(model: TimelineModel, query: string): SearchResult {
  const needle = query.trim().toLowerCase();
  const step = /^#(\d+)$/.exec(needle);
  const stepWanted = step ? Number(step[1]) : -1;
  // Names repeat (every iteration of a step has its own event): test each name once.
  const byName = new Map<string, boolean>();
  const nameMatches = (name: string) => {
    let hit = byName.get(name);
    if (hit === undefined) byName.set(name, (hit = name.toLowerCase().includes(needle)));
    return hit;
  };
  const matches: (SliceRef & { start: number })[] = [];
  const before = model.lanes.map((lane, l) => {
    if (!needle) return null;
    const s = lane.slices;
    const counts = new Int32Array(s.count + 1);
    for (let i = 0; i < s.count; i++) {
      const hit = step ? s.step[i] === stepWanted : nameMatches(model.events[s.event[i]]?.name ?? '');
      counts[i + 1] = counts[i] + (hit ? 1 : 0);
      if (hit) matches.push({ lane: l, slice: i, start: s.start[i] });
    }
    return counts[s.count] > 0 ? counts : null;
  });
  matches.sort((a, b) => a.start - b.start || a.lane - b.lane || a.slice - b.slice);
  return { query, matches: matches.map(({ lane, slice }) => ({ lane, slice })), before };
}

/** Whether any of slices first..last of a lane matched. */
export const anyMatch = (before: Int32Array | null, first: number, last: number): boolean =>
  before !== null && before[last + 1] - before[first] > 0;

/** The match `delta` away from `current` (-1: none yet), going round at either end. */
export function stepMatch(count: number, current: number, delta: 1 | -1): number {
  if (count === 0) return -1;
  if (current < 0) return delta > 0 ? 0 : count - 1;
  return (current + delta + count) % count;
}
