// Where things are on the canvas: the time axis on top, then a row per lane, under a header row
// for each group of lanes (a rank's in the whole run, a compare variant's when compared). A
// collapsed group keeps its header and hides its lanes. The lane labels beside the canvas use the
// same rows.
import type { Lane, TimelineModel } from './model';

export const AXIS_HEIGHT = 22;
export const LANE_HEIGHT = 22;
export const HEADER_HEIGHT = 20;
export const LABEL_WIDTH = 150;

export type Row =
  | { kind: 'header'; y: number; height: number; title: string; lanes: number; collapsed: boolean }
  | { kind: 'lane'; y: number; height: number; lane: number };

export interface Layout {
  rows: Row[];
  height: number;
}

/** The group a lane is shown under: its compare variant, else its rank. */
export const groupOf = (lane: Lane): string => lane.group ?? `rank ${lane.rank}`;

const NONE: ReadonlySet<string> = new Set();

export function layoutRows(model: TimelineModel, collapsed: ReadonlySet<string> = NONE): Layout {
  const sizes = new Map<string, number>();
  for (const lane of model.lanes) sizes.set(groupOf(lane), (sizes.get(groupOf(lane)) ?? 0) + 1);
  const rows: Row[] = [];
  let y = AXIS_HEIGHT;
  let group: string | null = null;
  model.lanes.forEach((lane, i) => {
    const title = groupOf(lane);
    const hidden = collapsed.has(title);
    if (title !== group) {
      rows.push({ kind: 'header', y, height: HEADER_HEIGHT, title, lanes: sizes.get(title) ?? 0, collapsed: hidden });
      y += HEADER_HEIGHT;
      group = title;
    }
    if (hidden) return;
    rows.push({ kind: 'lane', y, height: LANE_HEIGHT, lane: i });
    y += LANE_HEIGHT;
  });
  return { rows, height: y };
}

/** The lanes shown, top to bottom (indices into model.lanes). */
export const shownLanes = (layout: Layout): number[] => layout.rows.flatMap((r) => (r.kind === 'lane' ? [r.lane] : []));

/** The lane (index into model.lanes) at height `y`, or -1. */
export function laneAtY(layout: Layout, y: number): number {
  for (const row of layout.rows) if (row.kind === 'lane' && y >= row.y && y < row.y + row.height) return row.lane;
  return -1;
}
