// Searching the slices: those whose event name holds the query (any case), or of step #N for a
// query `#N`. Once per query, a pass over every slice, made cheap by an index of each slice's name
// built once per model version: a query tests each distinct name once, then each slice is a
// lookup in typed arrays. What a frame needs is an array per lane of matches before each slice,
// so that a rectangle standing for many thin slices knows in O(1) whether one of them matched.
// A host slice ("all_reduce (fill)") matches by its own word, "fill" or "verify": searching an op
// finds the op on its stream, not the host's work before it.
import type { TimelineModel } from './model';
import type { SliceRef } from './slices';

export interface SearchResult {
  query: string;
  /** The matches in time order, then lane order: the k-th is lane[k], slice[k]. */
  lane: Int32Array;
  slice: Int32Array;
  /** Per lane: matches among slices 0..i-1 at [i] (count + 1 long); null where the lane has none. */
  before: (Int32Array | null)[];
}

export const matchCount = (r: SearchResult): number => r.lane.length;
export const matchAt = (r: SearchResult, k: number): SliceRef => ({ lane: r.lane[k], slice: r.slice[k] });

interface NameIndex {
  version: number;
  names: string[];
  /** Per lane, per slice: index into names. */
  ids: Int32Array[];
}

const indices = new WeakMap<TimelineModel, NameIndex>();

/** Each slice's name as a number, the distinct names lower-cased: built once per model version. */
function nameIndex(model: TimelineModel): NameIndex {
  const known = indices.get(model);
  if (known && known.version === model.version && known.ids.length === model.lanes.length) return known;
  const names: string[] = [];
  const idOf = new Map<string, number>();
  const ids = model.lanes.map(({ slices: s }) => {
    const laneIds = new Int32Array(s.count);
    for (let i = 0; i < s.count; i++) {
      const name = model.events[s.event[i]]?.name ?? '';
      let id = idOf.get(name);
      if (id === undefined) {
        id = names.length;
        idOf.set(name, id);
        names.push(name.toLowerCase());
      }
      laneIds[i] = id;
    }
    return laneIds;
  });
  const index = { version: model.version, names, ids };
  indices.set(model, index);
  return index;
}

/** What the host's own work adds to its step's name (executor.ts). */
const HOST_WORK = / \((fill|verify)\)$/;

export function searchSlices(model: TimelineModel, query: string): SearchResult {
  const needle = query.trim().toLowerCase();
  const step = /^#(\d+)$/.exec(needle);
  const stepWanted = step ? Number(step[1]) : -1;
  const { names, ids } = nameIndex(model);
  const nameHit = new Uint8Array(names.length);
  const hostHit = new Uint8Array(names.length);
  if (needle && !step)
    names.forEach((name, id) => {
      nameHit[id] = name.includes(needle) ? 1 : 0;
      hostHit[id] = nameHit[id] && !name.replace(HOST_WORK, '').includes(needle) ? 1 : 0;
    });
  const lanes: number[] = [];
  const slices: number[] = [];
  const starts: number[] = [];
  const before = model.lanes.map(({ slices: s, stream }, l) => {
    if (!needle) return null;
    const laneIds = ids[l];
    const hits = stream === null ? hostHit : nameHit;
    const counts = new Int32Array(s.count + 1);
    for (let i = 0; i < s.count; i++) {
      const hit = step ? s.step[i] === stepWanted : hits[laneIds[i]] === 1;
      counts[i + 1] = counts[i] + (hit ? 1 : 0);
      if (hit) {
        lanes.push(l);
        slices.push(i);
        starts.push(s.start[i]);
      }
    }
    return counts[s.count] > 0 ? counts : null;
  });
  // Found lane by lane, so an index's order is lane order, each lane's in time order.
  const order = Uint32Array.from(starts.keys()).sort((a, b) => starts[a] - starts[b] || a - b);
  return {
    query,
    lane: Int32Array.from(order, (k) => lanes[k]),
    slice: Int32Array.from(order, (k) => slices[k]),
    before,
  };
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
