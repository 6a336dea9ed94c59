// A line chart as SVG: message size on a logarithmic x axis (powers of two), bandwidth on a linear
// or logarithmic y axis, a legend under it. Drawn from the same series the app's chart.js chart
// draws (sweep-chart.ts), so the picture and the screen agree.
import { formatBytes } from '../../data/units.js';
import { decadeTicks, escapeXml, formatLogTick, linearTicks, n, powerOfTwoTicks, svgDocument, text } from './svg.js';

export interface ChartPoint {
  x: number;
  y: number;
}

export interface ChartSeries {
  label: string;
  colour: string;
  /** Line width in px. */
  width: number;
  /** Dash pattern in px; empty: solid. */
  dash: readonly number[];
  /** Dots at the points (measurements); none for a model's curve. */
  markers: boolean;
  points: readonly ChartPoint[];
}

export interface LineChartSpec {
  title: string;
  /** The y axis' title: "GB/s", "MB/s". */
  yTitle: string;
  yScale: 'linear' | 'logarithmic';
  series: readonly ChartSeries[];
  width?: number;
  height?: number;
}

const MARGIN = { left: 64, right: 16, top: 34, bottom: 44 };
const LEGEND_ROW = 18;
/** A legend entry's width: swatch, gap and about 6.5 px a character. */
const entryWidth = (label: string) => 30 + label.length * 6.5 + 16;

function legendRows(series: readonly ChartSeries[], width: number): { s: ChartSeries; x: number; row: number }[] {
  const placed: { s: ChartSeries; x: number; row: number }[] = [];
  let x = MARGIN.left;
  let row = 0;
  for (const s of series) {
    if (x > MARGIN.left && x + entryWidth(s.label) > width - MARGIN.right) {
      row++;
      x = MARGIN.left;
    }
    placed.push({ s, x, row });
    x += entryWidth(s.label);
  }
  return placed;
}

const dashAttr = (dash: readonly number[]) => (dash.length ? ` stroke-dasharray="${dash.join(' ')}"` : '');

export function lineChartSvg(spec: LineChartSpec): string {
  const width = spec.width ?? 760;
  const legend = legendRows(spec.series, width);
  const legendHeight = legend.length ? (legend[legend.length - 1].row + 1) * LEGEND_ROW + 8 : 0;
  const plotHeight = (spec.height ?? 380) - MARGIN.top - MARGIN.bottom;
  const height = MARGIN.top + plotHeight + MARGIN.bottom + legendHeight;
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const log = spec.yScale === 'logarithmic';
  const points = spec.series.flatMap((s) => s.points).filter((p) => p.x > 0 && Number.isFinite(p.y) && (!log || p.y > 0));
  const body: string[] = [text(width / 2, 20, spec.title, { anchor: 'middle', size: 14, weight: 600 })];
  if (!points.length) {
    body.push(text(width / 2, MARGIN.top + plotHeight / 2, 'nothing measured', { anchor: 'middle' }));
    return svgDocument(width, height, spec.title, body);
  }
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const [xMin, xMax] = [Math.min(...xs), Math.max(...xs)];
  const lx = (x: number) => Math.log2(x);
  const xSpan = Math.max(1e-9, lx(xMax) - lx(xMin));
  const px = (x: number) => MARGIN.left + (xMax > xMin ? ((lx(x) - lx(xMin)) / xSpan) * plotWidth : plotWidth / 2);
  const yTicks = log ? decadeTicks(Math.min(...ys), Math.max(...ys)) : linearTicks(0, Math.max(...ys));
  const [yLo, yHi] = [yTicks[0], yTicks[yTicks.length - 1]];
  const fy = (y: number) => (log ? Math.log10(y) : y);
  const py = (y: number) => MARGIN.top + plotHeight - ((fy(y) - fy(yLo)) / Math.max(1e-12, fy(yHi) - fy(yLo))) * plotHeight;
  const bottom = MARGIN.top + plotHeight;
  for (const t of yTicks) {
    body.push(`<line x1="${MARGIN.left}" x2="${n(width - MARGIN.right)}" y1="${n(py(t))}" y2="${n(py(t))}" stroke="#e5e7eb"/>`);
    body.push(text(MARGIN.left - 6, py(t) + 4, formatLogTick(t), { anchor: 'end', fill: '#4b5563' }));
  }
  for (const t of powerOfTwoTicks(xMin, xMax)) {
    body.push(`<line x1="${n(px(t))}" x2="${n(px(t))}" y1="${MARGIN.top}" y2="${n(bottom)}" stroke="#f3f4f6"/>`);
    body.push(text(px(t), bottom + 16, formatBytes(t), { anchor: 'middle', fill: '#4b5563' }));
  }
  body.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${n(plotWidth)}" height="${n(plotHeight)}" fill="none" stroke="#9ca3af"/>`);
  body.push(text(MARGIN.left + plotWidth / 2, bottom + 34, 'message size', { anchor: 'middle' }));
  body.push(text(16, MARGIN.top + plotHeight / 2, log ? `${spec.yTitle} (log)` : spec.yTitle, { anchor: 'middle', rotate: true }));
  for (const s of spec.series) {
    const shown = s.points.filter((p) => p.x > 0 && Number.isFinite(p.y) && (!log || p.y > 0));
    if (!shown.length) continue;
    const d = shown.map((p, i) => `${i ? 'L' : 'M'}${n(px(p.x))} ${n(py(p.y))}`).join(' ');
    body.push(`<g data-series="${escapeXml(s.label)}">`);
    body.push(`<path d="${d}" fill="none" stroke="${s.colour}" stroke-width="${s.width}"${dashAttr(s.dash)}/>`);
    if (s.markers) for (const p of shown) body.push(`<circle cx="${n(px(p.x))}" cy="${n(py(p.y))}" r="3" fill="${s.colour}"/>`);
    body.push('</g>');
  }
  const legendTop = bottom + MARGIN.bottom;
  for (const { s, x, row } of legend) {
    const y = legendTop + row * LEGEND_ROW + 6;
    body.push(
      `<line x1="${n(x)}" x2="${n(x + 24)}" y1="${n(y)}" y2="${n(y)}" stroke="${s.colour}" stroke-width="${Math.min(s.width, 4)}"${dashAttr(s.dash)}/>`,
    );
    body.push(text(x + 30, y + 4, s.label));
  }
  return svgDocument(width, height, spec.title, body);
}
