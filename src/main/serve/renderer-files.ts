// The built renderer (out/renderer) as `clab serve` sends it: only files inside that folder,
// with the page's Content-Security-Policy and headers that keep browsers from guessing types,
// framing the page, leaking the token in Referer, or caching the page.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { contentSecurityPolicy } from '../core/service/content-security.js';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

export const NOT_BUILT = 'the app is not built (out/renderer/index.html is missing): run `npx electron-vite build`, then reload';

export class RendererFiles {
  readonly dir: string;
  private cachedPolicy: { stamp: string; policy: string } | null = null;

  constructor(dir: string) {
    this.dir = resolve(dir);
  }

  get built(): boolean {
    return existsSync(join(this.dir, 'index.html'));
  }

  /**
   * Read again only when index.html changes, so a rebuild while serving takes effect on reload
   * and a refusal needs no file descriptor (it is what is sent when none is left).
   */
  private policy(): string {
    const index = join(this.dir, 'index.html');
    const stats = statSync(index, { throwIfNoEntry: false });
    const stamp = stats ? `${stats.mtimeMs}:${stats.size}` : 'none';
    if (this.cachedPolicy?.stamp !== stamp) {
      let html: string | null;
      try {
        html = stats ? readFileSync(index, 'utf8') : null;
      } catch {
        // Out of descriptors or replaced mid-read: the same-origin fallback, tried again next time.
        return contentSecurityPolicy(null);
      }
      this.cachedPolicy = { stamp, policy: contentSecurityPolicy(html) };
    }
    return this.cachedPolicy.policy;
  }

  /** Headers every response carries, refusals included. */
  securityHeaders(): Record<string, string> {
    return {
      'Content-Security-Policy': this.policy(),
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Resource-Policy': 'same-origin',
    };
  }

  /** The file for a URL path, or null for anything outside the folder or missing. */
  resolve(pathname: string): string | null {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return null;
    }
    const relativePath = normalize(decoded === '/' ? '/index.html' : decoded).replace(/^[/\\]+/, '');
    if (relativePath.startsWith('..') || relativePath.includes('\0')) return null;
    const file = join(this.dir, relativePath);
    if (!file.startsWith(this.dir + sep)) return null;
    return existsSync(file) && statSync(file).isFile() ? file : null;
  }

  /**
   * Sends the file; rejects only before the headers are written (e.g. EMFILE when no descriptor
   * is left), so the caller can still answer. The file is closed however the transfer ends, a
   * client going away mid-download included.
   */
  async send(res: ServerResponse, file: string, headOnly: boolean): Promise<void> {
    const handle = await open(file, 'r');
    let size: number;
    try {
      size = (await handle.stat()).size;
    } catch (e) {
      await handle.close();
      throw e;
    }
    // Vite names assets after their content, so they can be kept; the page itself never is.
    const immutable = file.startsWith(join(this.dir, 'assets') + sep);
    res.writeHead(200, {
      ...this.securityHeaders(),
      'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Length': size,
      'Cache-Control': immutable ? 'private, max-age=31536000, immutable' : 'no-store',
    });
    if (headOnly) {
      await handle.close();
      res.end();
      return;
    }
    // pipeline destroys both ends when either fails or the client aborts; the stream closes the handle.
    await pipeline(handle.createReadStream(), res).catch(() => undefined);
  }
}
