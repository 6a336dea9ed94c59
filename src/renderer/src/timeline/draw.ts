// The drawer: the time axis, each lane's slices over the visible window, the send → receive
// arrows and the selected step's outline, onto a 2D canvas context in CSS pixels.
import { tickLabel, timeTicks } from '../ui/ticks';
import type { Flow } from './flows';
import { AXIS_HEIGHT, type Layout } from './layout';
import type { TimelineModel } from './model';
import { bodyColour, borderOf, canvasColours, textColour } from './paint';
import { PHASE_INDEX } from './phases';
import { laneRuns } from './runs';
import type { Viewport } from './viewport';

export interface DrawInput {
  model: TimelineModel;
  layout: Layout;
  view: Viewport;
  width: number;
  flows: readonly Flow[];
  selectedStep: number | null;
  hatch: CanvasPattern | null;
}

export interface DrawStats {
  /** Per lane: rectangles drawn (a merged run counts once), and slices in the window. */
  drawn: Int32Array;
  shown: Int32Array;
  total: number;
}

/** Beyond this many arrows in view they hide (except the selected step's): they would only blur the lanes. */
export const MAX_FLOWS = 400;
const LABEL_MIN_PX = 36;
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

export function drawTimeline(ctx: CanvasRenderingContext2D, input: DrawInput): DrawStats {
  const { model, layout, view, width, selectedStep, hatch } = input;
  const lanes = model.lanes;
  const stats: DrawStats = { drawn: new Int32Array(lanes.length), shown: new Int32Array(lanes.length), total: 0 };
  const laneMid = new Float64Array(lanes.length);
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
  for (const row of layout.rows) {
    if (row.kind !== 'lane') continue;
    const s = lanes[row.lane].slices;
    const y = row.y + 2;
    const h = row.height - 4;
    laneMid[row.lane] = row.y + row.height / 2;
    let drawn = 0;
    const shown = laneRuns(s, view.start, view.end, k, (i, x0, x1, merged) => {
      drawn++;
      // Clip to the canvas: a slice may reach far beyond it when zoomed in.
      const left = Math.max(x0, -2);
      const w = Math.min(x1, width + 2) - left;
      const fill = bodyColour(s.op[i], s.phase[i]);
      let batch = fills.get(fill);
      if (!batch) fills.set(fill, (batch = []));
      batch.push(left, y, w, h);
      if (s.step[i] === selectedStep) selected.push(left, y, w, h);
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
  drawFlows(ctx, input, laneMid);
  return stats;
}
