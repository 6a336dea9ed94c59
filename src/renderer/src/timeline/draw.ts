// The drawer: the time axis, each lane's slices over the visible window, the send → receive
// arrows, the selected step's outline and the selected slice's, the search's matches and the
// measured range, onto a 2D canvas context in CSS pixels.
import { tickLabel, timeTicks } from '../ui/ticks';
import { formatDuration } from '../ui/units';
import type { Flow } from './flows';
import { AXIS_HEIGHT, LANE_HEIGHT, type Layout } from './layout';
import type { Measure } from './measure';
import type { TimelineModel } from './model';
import { bodyColour, borderOf, canvasColours, textColour } from './paint';
import { PHASE_INDEX } from './phases';
import { laneRuns } from './runs';
import { anyMatch, type SearchResult } from './search';
import type { SliceRef } from './slices';
import type { Viewport } from './viewport';

export interface DrawInput {
  model: TimelineModel;
  layout: Layout;
  view: Viewport;
  width: number;
  flows: readonly Flow[];
  selectedStep: number | null;
  selectedSlice: SliceRef | null;
  search: SearchResult | null;
  measure: Measure | null;
  hatch: CanvasPattern | null;
}

export interface DrawStats {
  /** Per lane: rectangles drawn (a merged run counts once), and slices in the window. */
  drawn: Int32Array;
  shown: Int32Array;
  total: number;
  /** Search-match bars drawn (neighbouring matches share one). */
  matchBars: number;
}

/** Beyond this many arrows in view they hide (except the selected step's): they would only blur the lanes. */
export const MAX_FLOWS = 400;
const LABEL_MIN_PX = 36;
/** Search matches: amber bars, apart from the accent (selected step) and every op's colour. */
const MATCH = '#d97706';
/** A lane's slices leave 2 px above and below. */
const LANE_BODY = LANE_HEIGHT - 4;
const MATCH_BAR = 4;
const MEASURE_FILL = 'rgba(37, 99, 235, 0.10)';
const MEASURE_EDGE = 'rgba(37, 99, 235, 0.8)';
const FONT = '11px system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif';

function drawAxis(ctx: CanvasRenderingContext2D, view: Viewport, width: number, height: number): void {
  const k = width / (view.end - view.start);
  const { step, ticks } = timeTicks(view.start, view.end, Math.max(2, Math.floor(width / 90)));
  const colours = canvasColours();
  ctx.fillStyle = colours.axis;
  ctx.fillRect(0, 0, width, AXIS_HEIGHT);
  ctx.fillStyle = colours.axisLine;
  ctx.fillRect(0, AXIS_HEIGHT - 1, width, 1);
  ctx.fillStyle = colours.grid;
  for (const t of ticks) ctx.fillRect(Math.round((t - view.start) * k), AXIS_HEIGHT, 1, height - AXIS_HEIGHT);
  ctx.fillStyle = colours.tick;
  ctx.textBaseline = 'middle';
  for (const t of ticks) {
    const x = Math.round((t - view.start) * k);
    ctx.fillRect(x, AXIS_HEIGHT - 6, 1, 5);
    ctx.fillText(tickLabel(t, step), x + 3, AXIS_HEIGHT / 2 - 1);
  }
}

function drawArrow(ctx: CanvasRenderingContext2D, x0: number, y0: number, x1: number, y1: number): void {
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  ctx.lineTo(x1, y1);
  ctx.stroke();
  const a = Math.atan2(y1 - y0, x1 - x0);
  ctx.beginPath();
  ctx.moveTo(x1, y1);
  ctx.lineTo(x1 - 7 * Math.cos(a - 0.4), y1 - 7 * Math.sin(a - 0.4));
  ctx.lineTo(x1 - 7 * Math.cos(a + 0.4), y1 - 7 * Math.sin(a + 0.4));
  ctx.closePath();
  ctx.fill();
}

function drawFlows(ctx: CanvasRenderingContext2D, input: DrawInput, laneMid: Float64Array): void {
  const { view, width, flows, selectedStep } = input;
  const k = width / (view.end - view.start);
  const inView: Flow[] = [];
  for (const f of flows) {
    if (f.fromT > view.end) break;
    if (Math.max(f.fromT, f.toT) >= view.start && Math.min(f.fromT, f.toT) <= view.end) inView.push(f);
  }
  const shown = inView.length <= MAX_FLOWS ? inView : inView.filter((f) => f.step === selectedStep);
  ctx.lineWidth = 1.25;
  const { accent, flow } = canvasColours();
  for (const f of shown) {
    const colour = f.step === selectedStep ? accent : flow;
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    drawArrow(ctx, (f.fromT - view.start) * k, laneMid[f.fromLane], (f.toT - view.start) * k, laneMid[f.toLane]);
  }
}

interface Decorated {
  lane: number;
  slice: number;
  left: number;
  y: number;
  w: number;
  h: number;
}

/** Hatching of warm-ups, borders of loops, checks and blocks, and names where they fit. */
function decorate(ctx: CanvasRenderingContext2D, model: TimelineModel, decorated: Decorated[], hatch: CanvasPattern | null): void {
  const charWidth = ctx.measureText('abcdefghijklmnopqrstuvwxyz0123456789').width / 36;
  ctx.lineWidth = 1;
  ctx.textBaseline = 'middle';
  // Names of overlapping slices (a wait inside its block) would print over each other: the first keeps its place.
  let labelLane = -1;
  let labelEnd = -Infinity;
  for (const { lane, slice, left, y, w, h } of decorated) {
    const s = model.lanes[lane].slices;
    const op = s.op[slice];
    const phase = s.phase[slice];
    if (phase === PHASE_INDEX.warmup && hatch && w >= 6) {
      ctx.fillStyle = hatch;
      ctx.fillRect(left, y, w, h);
    }
    const border = borderOf(op, phase);
    if (border) {
      ctx.strokeStyle = border.colour;
      ctx.setLineDash(border.dash);
      ctx.strokeRect(left + 0.5, y + 0.5, w - 1, h - 1);
      ctx.setLineDash([]);
    }
    if (lane !== labelLane) {
      labelLane = lane;
      labelEnd = -Infinity;
    }
    const x = Math.max(left, 0) + 3;
    if (w >= LABEL_MIN_PX && x >= labelEnd) {
      const name = model.events[s.event[slice]]?.name ?? '';
      const fits = Math.floor((w - 6) / charWidth);
      const text = name.length <= fits ? name : `${name.slice(0, Math.max(0, fits - 1))}…`;
      labelEnd = x + text.length * charWidth;
      ctx.fillStyle = textColour(op, phase);
      ctx.fillText(text, x, y + h / 2);
    }
  }
}

function drawMeasure(ctx: CanvasRenderingContext2D, m: Measure, view: Viewport, width: number, height: number): void {
  const k = width / (view.end - view.start);
  const x0 = (m.start - view.start) * k;
  const x1 = m.end === null ? x0 : (m.end - view.start) * k;
  ctx.fillStyle = MEASURE_FILL;
  ctx.fillRect(x0, AXIS_HEIGHT, x1 - x0, height - AXIS_HEIGHT);
  ctx.fillStyle = MEASURE_EDGE;
  ctx.fillRect(Math.round(x0), 0, 1, height);
  if (m.end === null) return;
  ctx.fillRect(Math.round(x1), 0, 1, height);
  const text = formatDuration(m.end - m.start);
  const textWidth = ctx.measureText(text).width + 8;
  const left = Math.min(Math.max((x0 + x1) / 2 - textWidth / 2, 0), width - textWidth);
  ctx.fillRect(left, 3, textWidth, AXIS_HEIGHT - 6);
  ctx.fillStyle = '#ffffff';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, left + 4, AXIS_HEIGHT / 2);
}

export function drawTimeline(ctx: CanvasRenderingContext2D, input: DrawInput): DrawStats {
  const { model, layout, view, width, selectedStep, selectedSlice, search, measure, hatch } = input;
  const lanes = model.lanes;
  const stats: DrawStats = { drawn: new Int32Array(lanes.length), shown: new Int32Array(lanes.length), total: 0, matchBars: 0 };
  const laneMid = new Float64Array(lanes.length);
  const laneTop = new Float64Array(lanes.length).fill(-1);
  ctx.font = FONT;
  const colours = canvasColours();
  ctx.fillStyle = colours.background;
  ctx.fillRect(0, 0, width, layout.height);
  for (const row of layout.rows) {
    if (row.kind === 'header') {
      ctx.fillStyle = colours.header;
      ctx.fillRect(0, row.y, width, row.height);
      ctx.fillStyle = colours.text;
      ctx.textBaseline = 'middle';
      ctx.fillText(row.title, 6, row.y + row.height / 2);
    } else if (row.lane % 2 === 1) {
      ctx.fillStyle = colours.laneAlt;
      ctx.fillRect(0, row.y, width, row.height);
    }
  }
  drawAxis(ctx, view, width, layout.height);
  const k = width / (view.end - view.start);
  // Rectangles are gathered by fill and drawn a colour at a time: changing fillStyle costs more
  // than the rectangle. Slices wide enough for a hatch, border or name get those afterwards.
  const fills = new Map<string, number[]>();
  const decorated: Decorated[] = [];
  const selected: number[] = [];
  const found: number[] = [];
  for (const row of layout.rows) {
    if (row.kind !== 'lane') continue;
    const s = lanes[row.lane].slices;
    const y = row.y + 2;
    const h = row.height - 4;
    laneMid[row.lane] = row.y + row.height / 2;
    laneTop[row.lane] = y;
    const matches = search?.before[row.lane] ?? null;
    let drawn = 0;
    const shown = laneRuns(s, view.start, view.end, k, (i, x0, x1, merged, last) => {
      drawn++;
      // Clip to the canvas: a slice may reach far beyond it when zoomed in.
      const left = Math.max(x0, -2);
      const w = Math.min(x1, width + 2) - left;
      const fill = bodyColour(s.op[i], s.phase[i]);
      let batch = fills.get(fill);
      if (!batch) fills.set(fill, (batch = []));
      batch.push(left, y, w, h);
      if (s.step[i] === selectedStep) selected.push(left, y, w, h);
      if (matches && anyMatch(matches, i, last)) {
        // Matches side by side in a lane (less than 2 px apart) make one bar: zoomed out, most do.
        const n = found.length;
        if (n && found[n - 2] === y && left <= found[n - 3] + found[n - 1] + 1.5)
          found[n - 1] = Math.max(found[n - 1], left + w - found[n - 3]);
        else found.push(left, y, w);
      }
      if (merged === 1 && w >= 3) decorated.push({ lane: row.lane, slice: i, left, y, w, h });
    });
    stats.drawn[row.lane] = drawn;
    stats.shown[row.lane] = shown;
    stats.total += drawn;
  }
  for (const [fill, rects] of fills) {
    ctx.fillStyle = fill;
    for (let r = 0; r < rects.length; r += 4) ctx.fillRect(rects[r], rects[r + 1], rects[r + 2], rects[r + 3]);
  }
  decorate(ctx, model, decorated, hatch);
  ctx.strokeStyle = colours.accent;
  ctx.lineWidth = 2;
  for (let r = 0; r < selected.length; r += 4)
    ctx.strokeRect(selected[r] - 1, selected[r + 1] - 1, selected[r + 2] + 2, selected[r + 3] + 2);
  // A bar along the top of each match: a fill, as cheap as the slices themselves (a stroked
  // outline per match cost more than all the lanes with 30 000 matches in view).
  ctx.fillStyle = MATCH;
  for (let r = 0; r < found.length; r += 3) ctx.fillRect(found[r], found[r + 1] - 2, found[r + 2], MATCH_BAR);
  stats.matchBars = found.length / 3;
  if (selectedSlice && laneTop[selectedSlice.lane] >= 0) {
    const s = lanes[selectedSlice.lane].slices;
    const x0 = Math.max((s.start[selectedSlice.slice] - view.start) * k, -3);
    const x1 = Math.min(Math.max((s.end[selectedSlice.slice] - view.start) * k, x0 + 1), width + 3);
    ctx.strokeStyle = colours.text;
    ctx.lineWidth = 3;
    ctx.strokeRect(x0 - 2, laneTop[selectedSlice.lane] - 2, x1 - x0 + 4, LANE_BODY + 4);
  }
  drawFlows(ctx, input, laneMid);
  if (measure) drawMeasure(ctx, measure, view, width, layout.height);
  return stats;
}
