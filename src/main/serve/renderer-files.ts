// The built renderer (out/renderer) as `clab serve` sends it: only files inside that folder,
// with the page's Content-Security-Policy and headers that keep browsers from guessing types,
// framing the page, leaking the token in Referer, or caching the page.
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { contentSecurityPolicy } from '../core/content-security.js';

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

  constructor(dir: string) {
    this.dir = resolve(dir);
  }

  get built(): boolean {
    return existsSync(join(this.dir, 'index.html'));
  }

  /** Read per request, so a rebuild while serving takes effect on reload. */
  private policy(): string {
    const index = join(this.dir, 'index.html');
    return contentSecurityPolicy(existsSync(index) ? readFileSync(index, 'utf8') : null);
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

  send(res: ServerResponse, file: string, headOnly: boolean): void {
    // Vite names assets after their content, so they can be kept; the page itself never is.
    const immutable = file.startsWith(join(this.dir, 'assets') + sep);
    res.writeHead(200, {
      ...this.securityHeaders(),
      'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Length': statSync(file).size,
      'Cache-Control': immutable ? 'private, max-age=31536000, immutable' : 'no-store',
    });
    if (headOnly) res.end();
    else createReadStream(file).pipe(res);
  }
}
