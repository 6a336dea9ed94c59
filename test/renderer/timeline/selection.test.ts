import { describe, expect, it } from 'vitest';
import { layoutRows } from '../../../src/renderer/src/timeline/layout';
import { extendTimeline, loadTimeline } from '../../../src/renderer/src/timeline/model';
import { findSlice, moveSelection, revealRange } from '../../../src/renderer/src/timeline/selection';
import { allReduce, event, source } from './fixtures';

// Lanes: 0 rank 0 · a, 1 rank 0 · b, 2 rank 1 · a.
const model = loadTimeline(
  source(
    [{ action: allReduce() }],
    [
      event(0, 0, 'timed', 0, 100, 0),
      event(0, 0, 'timed', 200, 300, 0),
      event(0, 0, 'timed', 400, 500, 0),
      event(0, 0, 'timed', 150, 250, 1),
      event(0, 0, 'timed', 600, 700, 1),
      event(1, 0, 'timed', 650, 800, 0),
    ],
    { streams: ['a', 'b'] },
  ),
);
const layout = layoutRows(model);
const whole = { start: 0, end: 1_000 };

describe('moving the selection by keys', () => {
  it('starts at the first slice in view of the top lane, or the last of the bottom lane', () => {
    expect(moveSelection(model, layout, whole, null, 'next-slice')).toEqual({ lane: 0, slice: 0 });
    expect(moveSelection(model, layout, { start: 150, end: 1_000 }, null, 'next-slice')).toEqual({ lane: 0, slice: 1 });
    expect(moveSelection(model, layout, whole, null, 'previous-slice')).toEqual({ lane: 2, slice: 0 });
  });

  it('walks a lane in start order and stops at its ends', () => {
    expect(moveSelection(model, layout, whole, { lane: 0, slice: 0 }, 'next-slice')).toEqual({ lane: 0, slice: 1 });
    expect(moveSelection(model, layout, whole, { lane: 0, slice: 2 }, 'previous-slice')).toEqual({ lane: 0, slice: 1 });
    expect(moveSelection(model, layout, whole, { lane: 0, slice: 2 }, 'next-slice')).toBeNull();
    expect(moveSelection(model, layout, whole, { lane: 0, slice: 0 }, 'previous-slice')).toBeNull();
  });

  it('crosses to the slice of the next lane under or nearest the middle of the selected one', () => {
    // 200..300 (middle 250) → the b lane's 150..250 holds 250.
    expect(moveSelection(model, layout, whole, { lane: 0, slice: 1 }, 'lane-down')).toEqual({ lane: 1, slice: 0 });
    // 400..500 (middle 450) → nearer 600..700's start (150 away) than 150..250's end (200 away).
    expect(moveSelection(model, layout, whole, { lane: 0, slice: 2 }, 'lane-down')).toEqual({ lane: 1, slice: 1 });
    expect(moveSelection(model, layout, whole, { lane: 0, slice: 2 }, 'lane-up')).toBeNull();
  });

  it('skips the lanes of a collapsed group', () => {
    const collapsed = layoutRows(model, new Set(['rank 0']));
    expect(moveSelection(model, collapsed, whole, null, 'next-slice')).toEqual({ lane: 2, slice: 0 });
    expect(moveSelection(model, collapsed, whole, { lane: 2, slice: 0 }, 'lane-up')).toBeNull();
  });
});

describe('keeping the selection while a live run grows', () => {
  it('finds the selected slice again after earlier events re-sort its lane and a lane comes before it', () => {
    const src = source([{ action: allReduce() }], [event(1, 0, 'timed', 500, 600, 0)], { streams: ['a', 'b'] });
    const live = loadTimeline(src);
    const identity = { key: live.lanes[0].key, event: live.lanes[0].slices.event[0] };
    // Rank 0's lane arrives (sorted before rank 1's), and rank 1 an earlier slice.
    src.events.push(event(0, 0, 'timed', 0, 100, 0), event(1, 0, 'timed', 100, 200, 0));
    expect(extendTimeline(live, src)).toBe(live);
    expect(findSlice(live, identity.key, identity.event)).toEqual({ lane: 1, slice: 1 });
    expect(findSlice(live, 999, identity.event)).toBeNull();
  });
});

describe('bringing the selection into view', () => {
  it('leaves the window where the slice is in it', () => {
    const view = { start: 0, end: 1_000 };
    expect(revealRange(view, 100, 200)).toBe(view);
  });

  it('centres the same span on a slice outside it, or fits a slice wider than it', () => {
    expect(revealRange({ start: 0, end: 1_000 }, 5_000, 5_100)).toEqual({ start: 4_550, end: 5_550 });
    expect(revealRange({ start: 0, end: 100 }, 1_000, 3_000)).toEqual({ start: 900, end: 3_100 });
  });
});
