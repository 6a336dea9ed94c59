// "PNG": the visible timeline as an image, downloaded as <name>-timeline.png. Above it a title
// (scenario, backend, ranks, date) and the legend of the ops drawn, so the image reads on its own;
// beside it the lane names (HTML on the page, so drawn in here).
import { downloadBlob, fileStem } from '../ui/download';
import { LABEL_WIDTH, type Layout } from './layout';
import { opsIn, type TimelineModel } from './model';
import { OP_COLOURS, OPS } from './ops';
import { canvasColours } from './paint';

/** A file name from the scenario's name, as the results' downloads make theirs. */
export const pngFileName = (name: string): string => `${fileStem(name)}-timeline.png`;

export interface PngTitle {
  name: string;
  /** null: a live run, whose environment is not known yet. */
  backend: string | null;
  world: number;
  /** ISO time the run was asked for; null: a live run (now). */
  createdAt: string | null;
}

/** The image's title line: "all_reduce sweep — cpu, 2 ranks, 2026-11-25 09:00 UTC". */
export function pngTitle({ name, backend, world, createdAt }: PngTitle, now = new Date()): string {
  const when = createdAt ? new Date(createdAt) : now;
  const date = Number.isNaN(when.getTime()) ? (createdAt ?? '') : `${when.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const ranks = `${world} rank${world === 1 ? '' : 's'}`;
  return `${name} — ${backend ? `${backend}, ` : 'live run, '}${ranks}, ${date}`;
}

const FONT = '12px system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif';
const TITLE_FONT = `600 14px system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif`;
const PAD = 8;
const TITLE_HEIGHT = 22;
const LEGEND_ROW = 18;
const SWATCH = 11;

interface LegendItem {
  op: number;
  x: number;
  row: number;
}

/** Where each legend entry goes, in rows no wider than `width` (CSS pixels). */
function placeLegend(ctx: CanvasRenderingContext2D, ops: number[], width: number): { items: LegendItem[]; rows: number } {
  ctx.font = FONT;
  const items: LegendItem[] = [];
  let x = PAD;
  let row = 0;
  for (const op of ops) {
    const w = SWATCH + 4 + ctx.measureText(OPS[op]).width + 14;
    if (x > PAD && x + w > width - PAD) {
      row++;
      x = PAD;
    }
    items.push({ op, x, row });
    x += w;
  }
  return { items, rows: ops.length ? row + 1 : 0 };
}

function composite(canvas: HTMLCanvasElement, model: TimelineModel, layout: Layout, title: string): HTMLCanvasElement {
  const scale = canvas.width / Math.max(1, canvas.clientWidth);
  const image = document.createElement('canvas');
  const cssWidth = LABEL_WIDTH + canvas.width / scale;
  const measure = image.getContext('2d')!;
  const legend = placeLegend(measure, opsIn(model), cssWidth);
  const header = PAD + TITLE_HEIGHT + legend.rows * LEGEND_ROW + PAD;
  const headerPx = Math.round(header * scale);
  image.width = Math.round(LABEL_WIDTH * scale) + canvas.width;
  image.height = headerPx + canvas.height;
  const ctx = image.getContext('2d')!;
  const colours = canvasColours();
  ctx.fillStyle = colours.background;
  ctx.fillRect(0, 0, image.width, image.height);
  ctx.drawImage(canvas, Math.round(LABEL_WIDTH * scale), headerPx);
  ctx.scale(scale, scale);
  ctx.textBaseline = 'middle';
  ctx.fillStyle = colours.text;
  ctx.font = TITLE_FONT;
  ctx.fillText(title, PAD, PAD + TITLE_HEIGHT / 2, cssWidth - 2 * PAD);
  ctx.font = FONT;
  for (const { op, x, row } of legend.items) {
    const y = PAD + TITLE_HEIGHT + row * LEGEND_ROW + LEGEND_ROW / 2;
    ctx.fillStyle = OP_COLOURS[op];
    ctx.fillRect(x, y - SWATCH / 2, SWATCH, SWATCH);
    ctx.fillStyle = colours.text;
    ctx.fillText(OPS[op], x + SWATCH + 4, y);
  }
  ctx.translate(0, header);
  ctx.fillStyle = colours.text;
  for (const row of layout.rows) {
    if (row.kind === 'lane') ctx.fillText(model.lanes[row.lane].name, 6, row.y + row.height / 2, LABEL_WIDTH - 10);
  }
  return image;
}

export function downloadPng(canvas: HTMLCanvasElement, model: TimelineModel, layout: Layout, name: string, title: string): void {
  composite(canvas, model, layout, title).toBlob((blob) => {
    if (blob) downloadBlob(pngFileName(name), blob);
  }, 'image/png');
}
