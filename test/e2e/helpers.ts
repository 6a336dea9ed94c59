// Shared e2e machinery: a real `clab serve` child process, Debian's Chromium driven by
// playwright-core with a fresh profile, the server's process tree, and screenshots.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CHROMIUM = process.env.CLAB_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(REPO_ROOT, 'test-results', 'screenshots');
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface LabServerProcess {
  url: string;
  origin: string;
  token: string;
  pid: number;
  runsDir: string;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((done) => child.once('exit', () => done()));
}

/**
 * Starts `node bin/clab.cjs serve --port 0` and waits for the line with its URL; its runs folder
 * is a fresh one, or `runsDir` (removed as well when it stops).
 */
export async function startLabServer(o: { runsDir?: string } = {}): Promise<LabServerProcess> {
  if (!existsSync(join(REPO_ROOT, 'out/renderer/index.html')))
    throw new Error('the renderer is not built: run `npx electron-vite build` first');
  if (!existsSync(join(REPO_ROOT, 'dist/worker.cjs'))) throw new Error('the CLI is not built: run `npm run build` first');
  const runsDir = o.runsDir ?? mkdtempSync(join(tmpdir(), 'clab-e2e-runs-'));
  const child = spawn(process.execPath, ['bin/clab.cjs', 'serve', '--port', '0', '--runs', runsDir], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((found, fail) => {
    const timer = setTimeout(() => fail(new Error(`clab serve printed no URL within 20 s; stderr: ${stderr}`)), 20_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /Collective Lab serving at (http:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        found(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`clab serve exited with ${code}: ${stderr}`));
    });
  });
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token') ?? '',
    pid: child.pid!,
    runsDir,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited(child);
        clearTimeout(killer);
      }
      rmSync(runsDir, { recursive: true, force: true });
    },
  };
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** Chromium with a fresh, empty profile (so no drafts or session from an earlier run). */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'clab-e2e-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1440, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Every process below `root`, with its command line. */
export function descendants(root: number): { pid: number; args: string }[] {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }));
  const found: { pid: number; args: string }[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of table) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        found.push({ pid: p.pid, args: p.args });
        grew = true;
      }
    }
  }
  return found;
}

/** Polls until `check` returns a value other than undefined. */
export async function eventually<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/** Opens the lab page and waits until it is connected and the editor shows a scenario. */
export async function openLab(page: Page, server: LabServerProcess): Promise<void> {
  await page.goto(server.url);
  await page.getByTestId('connection').filter({ hasText: 'connected' }).waitFor();
  await page.locator('[data-testid=editor] .view-lines').waitFor();
}

/**
 * Opens the lab with the page's WebSockets under the test's hand: the returned function drops them
 * all and keeps the page from reconnecting (to a closed port) while offline, and lets it back.
 */
export async function openLabWithDroppableSockets(page: Page, server: LabServerProcess): Promise<(offline: boolean) => Promise<void>> {
  await page.addInitScript(() => {
    const g = globalThis as unknown as { WebSocket: typeof WebSocket; clabSockets: WebSocket[]; clabOffline: boolean };
    const Real = g.WebSocket;
    g.clabSockets = [];
    g.clabOffline = false;
    g.WebSocket = class extends Real {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(g.clabOffline ? 'ws://127.0.0.1:9/' : url, protocols);
        g.clabSockets.push(this);
      }
    };
  });
  await openLab(page, server);
  return (offline: boolean) =>
    page.evaluate((off) => {
      const g = globalThis as unknown as { clabSockets: WebSocket[]; clabOffline: boolean };
      g.clabOffline = off;
      if (off) for (const s of g.clabSockets) s.close();
    }, offline);
}

/** Replaces the editor's text through Monaco's model (the page exposes `monaco`). */
export async function setEditorText(page: Page, text: string): Promise<void> {
  await page.evaluate((value) => {
    const m = (globalThis as unknown as { monaco: { editor: { getModels(): { setValue(v: string): void }[] } } }).monaco;
    m.editor.getModels()[0].setValue(value);
  }, text);
}

/** Monaco's markers on the scenario model, as `line:column message` (owner). */
export async function editorMarkers(page: Page): Promise<{ owner: string; severity: number; text: string }[]> {
  return page.evaluate(() => {
    type Marker = { owner: string; severity: number; startLineNumber: number; startColumn: number; message: string };
    const m = (globalThis as unknown as { monaco: { editor: { getModelMarkers(f: object): Marker[] } } }).monaco;
    return m.editor
      .getModelMarkers({})
      .map((x) => ({ owner: x.owner, severity: x.severity, text: `${x.startLineNumber}:${x.startColumn} ${x.message}` }));
  });
}

export async function editorText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const m = (globalThis as unknown as { monaco: { editor: { getModels(): { getValue(): string }[] } } }).monaco;
    return m.editor.getModels()[0].getValue();
  });
}

export interface LabPageSession {
  server: LabServerProcess;
  page: Page;
  /** The page's console errors so far; a test that causes some on purpose removes them. */
  pageErrors: string[];
}

/**
 * One `clab serve` and one page for a test file: started before its tests (after `prepare` has
 * put what it needs in the server's runs folder), closed after them; any console error on the
 * page — a CSP violation, a failed asset, an exception — fails the test it happened in.
 */
export function usesLabPage(ready: (session: LabPageSession) => void, prepare?: (server: LabServerProcess) => void | Promise<void>): void {
  let server: LabServerProcess | undefined;
  let browser: Browser | undefined;
  const pageErrors: string[] = [];
  beforeAll(async () => {
    server = await startLabServer();
    await prepare?.(server);
    browser = await launchBrowser();
    const { page } = browser;
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await openLab(page, server);
    ready({ server, page, pageErrors });
  }, 120_000);
  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** axe-core's serious and critical violations on the page as it is now, one line each. */
export async function axeViolations(page: Page): Promise<string[]> {
  // The page's CSP refuses inline scripts: evaluate the source through the debugger instead.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(c: Document, o: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id} (${v.help}) at ${n.target.join(' ')}: ${n.failureSummary ?? ''}`));
}

/** `clab run` on the cpu backend, its record written to `runsDir` as `<name>.run.json`; returns its path. */
export function cliRecord(runsDir: string, scenario: string, ranks: number, name: string): string {
  const out = join(runsDir, `${name}.run.json`);
  execFileSync(process.execPath, ['bin/clab.cjs', 'run', scenario, '--ranks', String(ranks), '--backend', 'cpu', '--out', out], {
    cwd: REPO_ROOT,
    stdio: 'ignore',
  });
  return out;
}

/**
 * The all_reduce sweep template cut to `maxBytes` (a run of it takes a second or two), written beside
 * the records in `runsDir` so that it goes with them (the list shows only *.run.json).
 */
export function shortSweep(runsDir: string, maxBytes: string): string {
  const sweep = JSON.parse(readFileSync(join(REPO_ROOT, 'scenarios/allreduce-sweep.scenario.json'), 'utf8')) as {
    steps: Record<string, unknown>[];
    $schema?: string;
  };
  sweep.steps[0].maxBytes = maxBytes;
  delete sweep.$schema;
  const file = join(runsDir, `sweep-${maxBytes}.scenario.json`);
  writeFileSync(file, JSON.stringify(sweep));
  return file;
}
