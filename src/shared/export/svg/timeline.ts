// A window of a timeline as SVG: a lane per row (its name on the left), each span a rectangle in
// its op's colour, a time axis on top and the legend of the ops drawn above it. Spans that would
// fall inside a pixel already drawn are left out, so a lane costs at most about two rectangles a
// pixel of width however many events it holds.
import { formatDuration } from '../../data/units.js';
import { escapeXml, linearTicks, n, svgDocument, text } from './svg.js';

export interface TimelineSpan {
  /** ns on the picture's time axis. */
  start: number;
  end: number;
  colour: string;
}

export interface TimelineLane {
  name: string;
  /** Sorted by start. */
  spans: readonly TimelineSpan[];
}

export interface TimelineSpec {
  title: string;
  lanes: readonly TimelineLane[];
  /** The window, ns. */
  start: number;
  end: number;
  legend: readonly { label: string; colour: string }[];
  width?: number;
}

const LABEL = 170;
const LANE = 20;
const AXIS = 24;
const LEGEND_ROW = 18;

/** The spans of one lane in the window as rectangles, px from the plot's left. */
function laneRects(spans: readonly TimelineSpan[], x: (t: number) => number, start: number, end: number, plotWidth: number) {
  const rects: { x0: number; x1: number; colour: string }[] = [];
  for (const s of spans) {
    if (s.end < start || s.start > end) continue;
    const x0 = Math.max(0, x(s.start));
    const x1 = Math.min(plotWidth, Math.max(x(s.end), x0 + 0.5));
    const last = rects[rects.length - 1];
    if (last && x1 <= last.x1 + 0.5) continue;
    if (last && last.colour === s.colour && x0 <= last.x1 + 0.5) last.x1 = x1;
    else rects.push({ x0, x1, colour: s.colour });
  }
  return rects;
}

export function timelineSvg(spec: TimelineSpec): string {
  const width = spec.width ?? 960;
  const plotWidth = width - LABEL - 12;
  let legendRows = 0;
  const legend: { label: string; colour: string; x: number; row: number }[] = [];
  let lx = 8;
  for (const item of spec.legend) {
    const w = 16 + item.label.length * 6.5 + 14;
    if (lx > 8 && lx + w > width - 8) {
      legendRows++;
      lx = 8;
    }
    legend.push({ ...item, x: lx, row: legendRows });
    lx += w;
  }
  const top = 30 + (spec.legend.length ? (legendRows + 1) * LEGEND_ROW : 0);
  const height = top + AXIS + spec.lanes.length * LANE + 8;
  const span = Math.max(1, spec.end - spec.start);
  const x = (t: number) => ((t - spec.start) / span) * plotWidth;
  const body = [text(8, 20, spec.title, { size: 14, weight: 600 })];
  for (const item of legend) {
    const y = 30 + item.row * LEGEND_ROW;
    body.push(`<rect x="${n(item.x)}" y="${n(y)}" width="11" height="11" fill="${item.colour}"/>`);
    body.push(text(item.x + 16, y + 10, item.label));
  }
  const axisY = top + AXIS - 6;
  for (const t of linearTicks(0, span, 6)) {
    if (t > span) break;
    body.push(
      `<line x1="${n(LABEL + x(spec.start + t))}" x2="${n(LABEL + x(spec.start + t))}" y1="${n(axisY)}" y2="${n(height - 8)}" stroke="#e5e7eb"/>`,
    );
    body.push(text(LABEL + x(spec.start + t), axisY - 4, formatDuration(t), { anchor: 'middle', fill: '#4b5563', size: 11 }));
  }
  spec.lanes.forEach((lane, i) => {
    const y = top + AXIS + i * LANE;
    body.push(text(8, y + LANE / 2 + 4, lane.name.length > 26 ? `${lane.name.slice(0, 25)}…` : lane.name));
    body.push(`<g data-lane="${escapeXml(lane.name)}">`);
    for (const r of laneRects(lane.spans, x, spec.start, spec.end, plotWidth))
      body.push(`<rect x="${n(LABEL + r.x0)}" y="${n(y + 2)}" width="${n(r.x1 - r.x0)}" height="${LANE - 4}" fill="${r.colour}"/>`);
    body.push('</g>');
  });
  return svgDocument(width, height, spec.title, body);
}
