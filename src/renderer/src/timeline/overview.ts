// The overview strip: the whole run at a glance (one thin band per lane), drawn once per model
// into a bitmap, with the visible window framed over it on every frame.
import type { TimelineModel } from './model';
import { bodyColour, canvasColours } from './paint';
import { laneRuns } from './runs';
import { fitAll, type Viewport } from './viewport';

export const OVERVIEW_HEIGHT = 36;

/** The time range the overview spans, ns from the origin: the whole run with the fit margin. */
export const overviewRange = (model: TimelineModel): Viewport => fitAll(model.endNs);

/** Draws every lane over the whole run into `bitmap`, `width` × OVERVIEW_HEIGHT CSS px at `dpr`. */
export function drawOverviewBitmap(bitmap: HTMLCanvasElement, model: TimelineModel, width: number, dpr: number): void {
  bitmap.width = Math.max(1, Math.round(width * dpr));
  bitmap.height = Math.round(OVERVIEW_HEIGHT * dpr);
  const ctx = bitmap.getContext('2d')!;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = canvasColours().axis;
  ctx.fillRect(0, 0, width, OVERVIEW_HEIGHT);
  const range = overviewRange(model);
  const k = width / (range.end - range.start);
  const band = (OVERVIEW_HEIGHT - 4) / Math.max(1, model.lanes.length);
  model.lanes.forEach((lane, l) => {
    const s = lane.slices;
    const y = 2 + l * band;
    laneRuns(s, range.start, range.end, k, (i, x0, x1) => {
      ctx.fillStyle = bodyColour(s.op[i], s.phase[i]);
      ctx.fillRect(x0, y, x1 - x0, Math.max(1, band - (band > 3 ? 1 : 0)));
    });
  });
}

/** The bitmap, the parts outside the window veiled, and the window framed. */
export function drawOverview(
  ctx: CanvasRenderingContext2D,
  bitmap: HTMLCanvasElement,
  model: TimelineModel,
  view: Viewport,
  width: number,
): void {
  ctx.clearRect(0, 0, width, OVERVIEW_HEIGHT);
  ctx.drawImage(bitmap, 0, 0, width, OVERVIEW_HEIGHT);
  const range = overviewRange(model);
  const k = width / (range.end - range.start);
  const x0 = Math.max(0, (view.start - range.start) * k);
  const x1 = Math.min(width, (view.end - range.start) * k);
  const { veil, accent } = canvasColours();
  ctx.fillStyle = veil;
  ctx.fillRect(0, 0, x0, OVERVIEW_HEIGHT);
  ctx.fillRect(x1, 0, width - x1, OVERVIEW_HEIGHT);
  ctx.strokeStyle = accent;
  ctx.lineWidth = 1.5;
  ctx.strokeRect(x0 + 0.75, 0.75, Math.max(2, x1 - x0 - 1.5), OVERVIEW_HEIGHT - 1.5);
}
