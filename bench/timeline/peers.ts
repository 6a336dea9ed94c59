// The cold-load and heap figures of the timeline bench, ours beside speedscope's on the same run:
// a fresh Chromium profile (empty cache) loads the page and shows the run, to the first frame of
// its timeline (ours: the lab page, Open on the saved run, the Timeline tab, all driven inside the
// page; speedscope: its release build given the run's Chrome trace, as `clab export` writes it,
// by #profileURL). Then, after a garbage collection, the JS heap each page holds.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser, REPO_ROOT, type LabServerProcess } from '../../test/e2e/helpers';
import { writeChromeTrace } from '../../src/shared/export/chrome-trace';
import type { RunRecord } from '../../src/shared/run/record/record';

export interface PeerFigures {
  /** Navigation start → the end of the first frame that shows the run, in ms. */
  firstFrameMs: number;
  /** JS heap in use once the run is shown, after a garbage collection, in bytes. */
  heapBytes: number;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
};

/** speedscope's release build and one trace file, served from 127.0.0.1. */
async function serveSpeedscope(trace: string): Promise<{ url: string; server: Server }> {
  // The package's main file is absent; its folder holds the release build.
  const release = join(REPO_ROOT, 'node_modules/speedscope/dist/release');
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = path === '/trace.json' ? trace : join(release, normalize(path === '/' ? '/index.html' : path));
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/index.html#profileURL=${encodeURIComponent(`http://127.0.0.1:${port}/trace.json`)}`, server };
}

async function heapAfterGc(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  return usedSize;
}

/** Our page, cold: from navigation to the first timeline frame of the saved run `file` in the runs folder. */
export async function labColdLoad(server: LabServerProcess, file: string): Promise<PeerFigures> {
  const browser = await launchBrowser();
  try {
    const page = browser.page;
    // Inside the page from its first script on: no round trip to the bench in the figure.
    // As text: tsx would wrap the named functions of a function literal in a helper the page lacks.
    await page.addInitScript(`
      const click = (selector) => {
        const el = document.querySelector(selector);
        el?.click();
        return el !== null;
      };
      let stage = 0;
      const step = () => {
        if (stage === 0 && click('[data-testid=tab-runs]')) stage = 1;
        if (stage === 1 && click('[data-testid=saved-run]:has(td[title$=${JSON.stringify(file)}]) [data-testid=open-run]')) stage = 2;
        if (stage === 2 && document.querySelector('[data-testid=results]') && click('[data-testid=tab-timeline]')) stage = 3;
        if (stage < 3) setTimeout(step, 1);
      };
      document.addEventListener('DOMContentLoaded', step);
    `);
    await page.goto(server.url);
    const deadline = Date.now() + 120_000;
    for (;;) {
      const frames = await page.evaluate(
        () => (window as unknown as { __clabTimelineFrames?: { at: number; ms: number }[] }).__clabTimelineFrames ?? [],
      );
      if (frames.length) {
        const first = frames[0];
        return { firstFrameMs: first.at + first.ms, heapBytes: await heapAfterGc(page) };
      }
      if (Date.now() > deadline) throw new Error('no timeline frame within 120 s of a cold load');
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await browser.close();
  }
}

/** speedscope, cold: from navigation to the first frame that shows the run's trace. */
export async function speedscopeColdLoad(record: RunRecord, traceFile: string): Promise<PeerFigures> {
  const chunks: string[] = [];
  writeChromeTrace(record, (chunk) => chunks.push(chunk));
  writeFileSync(traceFile, chunks.join(''));
  const { url, server } = await serveSpeedscope(traceFile);
  const browser = await launchBrowser();
  try {
    const page = browser.page;
    // The first animation frame after speedscope has put a profile's flame chart on the page.
    await page.addInitScript(`
      const look = () => {
        const shown = document.querySelector('canvas') && document.body.innerText.includes('(pid ');
        if (shown) requestAnimationFrame(() => (window.__speedscopeShown = performance.now()));
        else requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    `);
    await page.goto(url);
    await page.waitForFunction(() => (window as unknown as { __speedscopeShown?: number }).__speedscopeShown !== undefined, null, {
      timeout: 120_000,
      polling: 50,
    });
    const firstFrameMs = await page.evaluate(() => (window as unknown as { __speedscopeShown: number }).__speedscopeShown);
    return { firstFrameMs, heapBytes: await heapAfterGc(page) };
  } finally {
    await browser.close();
    server.close();
  }
}
