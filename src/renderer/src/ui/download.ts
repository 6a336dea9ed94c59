// Files made in the page (a scenario, a trace, a CSV, a run record, a PNG) are handed to the user
// as downloads: a blob: URL on an <a download>, which the page's CSP allows (no navigation,
// nothing fetched) and which works the same in Electron and in a browser.
import { themeColour } from './theme';
export function downloadBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  // Revoked later, not at once: the browser may still be reading the blob when click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A name safe as a file name on every system: the scenario's name with unsafe runs as "-". */
export function fileStem(name: string): string {
  const stem = name
    .trim()
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '');
  return stem || 'run';
}

/** A canvas as a PNG on the page's background: the canvas itself is transparent, which image viewers show as black or checkered. */
export function canvasPng(canvas: HTMLCanvasElement): Promise<Blob> {
  const opaque = document.createElement('canvas');
  opaque.width = canvas.width;
  opaque.height = canvas.height;
  const ctx = opaque.getContext('2d')!;
  ctx.fillStyle = themeColour('--panel') || '#ffffff';
  ctx.fillRect(0, 0, opaque.width, opaque.height);
  ctx.drawImage(canvas, 0, 0);
  return new Promise((done, fail) =>
    opaque.toBlob((blob) => (blob ? done(blob) : fail(new Error('the chart could not be encoded as PNG'))), 'image/png'),
  );
}
