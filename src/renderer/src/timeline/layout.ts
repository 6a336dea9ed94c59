// Where things are on the canvas: the time axis on top, then a row per lane, with a header row
// above each group of lanes (a compare variant). The lane labels beside the canvas use the same rows.
import type { TimelineModel } from './model';

export const AXIS_HEIGHT = 22;
export const LANE_HEIGHT = 22;
export const HEADER_HEIGHT = 20;
export const LABEL_WIDTH = 150;

export type Row = { kind: 'header'; y: number; height: number; title: string } | { kind: 'lane'; y: number; height: number; lane: number };

export interface Layout {
  rows: Row[];
  height: number;
}

export function layoutRows(model: TimelineModel): Layout {
  const rows: Row[] = [];
  let y = AXIS_HEIGHT;
  let group: string | null = null;
  model.lanes.forEach((lane, i) => {
    if (lane.group !== null && lane.group !== group) {
      rows.push({ kind: 'header', y, height: HEADER_HEIGHT, title: lane.group });
      y += HEADER_HEIGHT;
    }
    group = lane.group;
    rows.push({ kind: 'lane', y, height: LANE_HEIGHT, lane: i });
    y += LANE_HEIGHT;
  });
  return { rows, height: y };
}

/** The lane (index into model.lanes) at height `y`, or -1. */
export function laneAtY(layout: Layout, y: number): number {
  for (const row of layout.rows) if (row.kind === 'lane' && y >= row.y && y < row.y + row.height) return row.lane;
  return -1;
}
