// What the results' downloads (trace, CSV, the record itself, a chart's PNG) are named and made of.
export { downloadBlob } from '../app/download';

/** A name safe as a file name on every system: the scenario's name with unsafe runs as "-". */
export function fileStem(name: string): string {
  const stem = name.trim().replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '');
  return stem || 'run';
}

/** The chart as a PNG on white: the canvas itself is transparent, which image viewers show as black or checkered. */
export function canvasPng(canvas: HTMLCanvasElement): Promise<Blob> {
  const opaque = document.createElement('canvas');
  opaque.width = canvas.width;
  opaque.height = canvas.height;
  const ctx = opaque.getContext('2d')!;
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, opaque.width, opaque.height);
  ctx.drawImage(canvas, 0, 0);
  return new Promise((done, fail) => opaque.toBlob((blob) => (blob ? done(blob) : fail(new Error('the chart could not be encoded as PNG'))), 'image/png'));
}
