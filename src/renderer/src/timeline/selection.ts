// Moving the selected slice by keys: to the next or previous slice of its lane (in start order),
// to the nearest slice of the lane above or below, or, with nothing selected yet, to the first or
// last slice in view. Binary searches over a lane, never a walk over every slice.
import { shownLanes, type Layout } from './layout';
import type { TimelineModel } from './model';
import { countStartingBy, firstEndingFrom, nearestSlice, type SliceRef } from './slices';
import type { Viewport } from './viewport';

export type SelectionMove = 'next-slice' | 'previous-slice' | 'lane-up' | 'lane-down';

/** Where `move` takes the selection; null where it cannot go (no lane above, end of the lane). */
export function moveSelection(
  model: TimelineModel,
  layout: Layout,
  view: Viewport,
  from: SliceRef | null,
  move: SelectionMove,
): SliceRef | null {
  const lanes = shownLanes(layout);
  if (!lanes.length) return null;
  if (!from || !lanes.includes(from.lane)) return firstInView(model, lanes, view, move === 'previous-slice' || move === 'lane-up');
  if (move === 'next-slice' || move === 'previous-slice') {
    const slice = from.slice + (move === 'next-slice' ? 1 : -1);
    return slice >= 0 && slice < model.lanes[from.lane].slices.count ? { lane: from.lane, slice } : null;
  }
  const at = lanes.indexOf(from.lane) + (move === 'lane-down' ? 1 : -1);
  const s = model.lanes[from.lane].slices;
  const middle = (s.start[from.slice] + s.end[from.slice]) / 2;
  // Past an empty lane to the next that has slices.
  for (let i = at; i >= 0 && i < lanes.length; i += move === 'lane-down' ? 1 : -1) {
    const slice = nearestSlice(model.lanes[lanes[i]].slices, middle);
    if (slice >= 0) return { lane: lanes[i], slice };
  }
  return null;
}

/** The first slice in view of the top lane, or (`last`) the last one of the bottom lane. */
function firstInView(model: TimelineModel, lanes: number[], view: Viewport, last: boolean): SliceRef | null {
  const order = last ? [...lanes].reverse() : lanes;
  for (const lane of order) {
    const s = model.lanes[lane].slices;
    if (!s.count) continue;
    const slice = last ? Math.max(0, countStartingBy(s, view.end) - 1) : Math.min(s.count - 1, firstEndingFrom(s, view.start));
    return { lane, slice };
  }
  return null;
}

/**
 * A window that shows slice [start, end]: the same span centred on it where it fits in the middle
 * 90 %, else the slice with a margin. Unchanged where the slice is in view already.
 */
export function revealRange(view: Viewport, start: number, end: number): Viewport {
  const span = view.end - view.start;
  if (start >= view.start && end <= view.end) return view;
  if (end - start <= span * 0.9) {
    const middle = (start + end) / 2;
    return { start: middle - span / 2, end: middle + span / 2 };
  }
  const margin = (end - start) * 0.05;
  return { start: start - margin, end: end + margin };
}

/** A slice that outlives re-sorting: its lane's key and its event's index in the source. */
export interface SliceIdentity {
  key: number;
  event: number;
}

/** Where a slice is now, after a live run's new events re-sorted its lane or added lanes before it. */
export function findSlice(model: TimelineModel, key: number, event: number): SliceRef | null {
  const lane = model.lanes.findIndex((l) => l.key === key);
  if (lane < 0) return null;
  const s = model.lanes[lane].slices;
  for (let i = 0; i < s.count; i++) if (s.event[i] === event) return { lane, slice: i };
  return null;
}
