import { describe, expect, it } from 'vitest';
import { AXIS_HEIGHT, HEADER_HEIGHT, LANE_HEIGHT, laneAtY, layoutRows, shownLanes } from '../../../src/renderer/src/timeline/layout';
import { loadTimeline } from '../../../src/renderer/src/timeline/model';
import { allReduce, event, source } from './fixtures';

const model = loadTimeline(
  source(
    [{ action: allReduce() }],
    [event(0, 0, 'timed', 0, 100, 0), event(0, 0, 'timed', 0, 100, 1), event(0, 0, 'fill', 0, 10, 0), event(1, 0, 'timed', 0, 100, 0)],
    { streams: ['a', 'b'] },
  ),
);

describe('timeline rows', () => {
  it('puts a header above each rank’s lanes in the whole run', () => {
    const rows = layoutRows(model).rows;
    expect(rows.map((r) => (r.kind === 'header' ? `${r.title} (${r.lanes})` : model.lanes[r.lane].name))).toEqual([
      'rank 0 (3)',
      'rank 0 · a',
      'rank 0 · b',
      'rank 0 · host',
      'rank 1 (1)',
      'rank 1 · a',
    ]);
    expect(rows[1].y).toBe(AXIS_HEIGHT + HEADER_HEIGHT);
  });

  it('keeps a collapsed group’s header and hides its lanes, the rows below moving up', () => {
    const layout = layoutRows(model, new Set(['rank 0']));
    expect(shownLanes(layout)).toEqual([3]);
    const header = layout.rows[0];
    expect(header.kind === 'header' && header.collapsed).toBe(true);
    expect(layout.height).toBe(AXIS_HEIGHT + 2 * HEADER_HEIGHT + LANE_HEIGHT);
    expect(laneAtY(layout, AXIS_HEIGHT + 2 * HEADER_HEIGHT + 1)).toBe(3);
    expect(laneAtY(layout, AXIS_HEIGHT + 1)).toBe(-1);
  });
});
