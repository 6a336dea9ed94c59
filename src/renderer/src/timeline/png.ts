// "PNG": the visible timeline as an image, with the lane names beside it (they are HTML on the
// page, so they are drawn in here), downloaded as <name>-timeline.png.
import { downloadBlob, fileStem } from '../ui/download';
import { LABEL_WIDTH, type Layout } from './layout';
import type { TimelineModel } from './model';
import { canvasColours } from './paint';

/** A file name from the scenario's name, as the results' downloads make theirs. */
export const pngFileName = (name: string): string => `${fileStem(name)}-timeline.png`;

function composite(canvas: HTMLCanvasElement, model: TimelineModel, layout: Layout): HTMLCanvasElement {
  const scale = canvas.width / Math.max(1, canvas.clientWidth);
  const image = document.createElement('canvas');
  image.width = Math.round(LABEL_WIDTH * scale) + canvas.width;
  image.height = canvas.height;
  const ctx = image.getContext('2d')!;
  const colours = canvasColours();
  ctx.fillStyle = colours.background;
  ctx.fillRect(0, 0, image.width, image.height);
  ctx.drawImage(canvas, Math.round(LABEL_WIDTH * scale), 0);
  ctx.scale(scale, scale);
  ctx.font = '12px system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif';
  ctx.textBaseline = 'middle';
  ctx.fillStyle = colours.text;
  for (const row of layout.rows) {
    if (row.kind === 'lane') ctx.fillText(model.lanes[row.lane].name, 6, row.y + row.height / 2, LABEL_WIDTH - 10);
  }
  return image;
}

export function downloadPng(canvas: HTMLCanvasElement, model: TimelineModel, layout: Layout, name: string): void {
  composite(canvas, model, layout).toBlob((blob) => {
    if (blob) downloadBlob(pngFileName(name), blob);
  }, 'image/png');
}
