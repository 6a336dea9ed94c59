// `clab serve` as a browser and an attacker meet it: real HTTP and WebSocket on a free port.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { API_VERSION, wsServerMessageSchema } from '../../../src/shared/run/api/api';
import { LabService } from '../../../src/main/core/service/lab-service';
import { startLabServer, type LabServer } from '../../../src/main/serve/server';
import { syntheticRecord } from '../../../bench/timeline/synthetic-record';
import { unpackRecord } from '../../../src/shared/run/record/packed-run';
import { nodeUtf8 } from '../../../src/main/core/library/packed-runs';
import { tempDir } from '../../setup/temp-dirs';

const PAGE_CSP = "default-src 'self'; script-src 'self'; connect-src 'self' ws://127.0.0.1:*; object-src 'none'";
// The renderer folder, beside it a file it must never serve, and the runs folder.
const served = tempDir('serve');
const rendererDir = join(served, 'renderer');
const secret = join(served, 'clab-secret.txt');
const runsDir = join(served, 'runs');
mkdirSync(join(rendererDir, 'assets'), { recursive: true });
mkdirSync(runsDir);
writeFileSync(
  join(rendererDir, 'index.html'),
  `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="${PAGE_CSP}" /></head><body><div id="root"></div><script type="module" src="./assets/app.js"></script></body></html>`,
);
writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log("lab");');
writeFileSync(secret, 'secret');

const service = new LabService({ runsDir });
let server: LabServer;
beforeAll(async () => {
  server = await startLabServer(service, { port: 0, rendererDir });
});
afterAll(async () => {
  await service.dispose();
  await server.close();
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  bytes: Buffer;
}

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode!, headers: res.headers, body: bytes.toString('utf8'), bytes });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens the API socket; resolves with the socket, or with the HTTP status it was refused with. */
function connect(query: string, origin: string | undefined): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api${query}`, origin ? { origin } : {});
    ws.on('open', () => resolve(ws));
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!));
    ws.on('error', reject);
  });
}

async function openApi(): Promise<WebSocket> {
  const ws = await connect(`?token=${server.token}`, server.origin);
  if (typeof ws === 'number') throw new Error(`refused with ${ws}`);
  return ws;
}

/** The next frame that matches, validated with the wire schema. */
function nextFrame(ws: WebSocket, match: (frame: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const frame = wsServerMessageSchema.parse(JSON.parse(data.toString())) as Record<string, unknown>;
      if (!match(frame)) return;
      ws.off('message', onMessage);
      resolve(frame);
    };
    ws.on('message', onMessage);
  });
}

let nextId = 1;
async function call(ws: WebSocket, method: string, params: unknown): Promise<Record<string, unknown>> {
  const id = nextId++;
  const answer = nextFrame(ws, (f) => f.type === 'result' && f.id === id);
  ws.send(JSON.stringify({ type: 'call', v: API_VERSION, id, call: { method, params } }));
  return answer;
}

describe('pages', () => {
  it('refuses a request without the token with 401 and a short text', async () => {
    const r = await get('/');
    expect(r.status).toBe(401);
    expect(r.body).toMatch(/token/);
    expect(r.body.length).toBeLessThan(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
  });

  it("serves the page with the token, with the page's CSP, nosniff, no caching and an HttpOnly SameSite cookie", async () => {
    const r = await get(`/?token=${server.token}`);
    expect(r.status).toBe(200);
    expect(r.body).toContain('<div id="root">');
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.headers['content-security-policy']).toBe(`${PAGE_CSP}; frame-ancestors 'none'`);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.headers['referrer-policy']).toBe('no-referrer');
    const cookie = (r.headers['set-cookie'] as string[])[0];
    expect(cookie).toBe(`clab_token_${server.port}=${server.token}; HttpOnly; SameSite=Strict; Path=/`);
  });

  it("serves the page's assets to the cookie the page set, and not without it", async () => {
    const cookie = `clab_token_${server.port}=${server.token}`;
    const asset = await get('/assets/app.js', { cookie });
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.body).toBe('console.log("lab");');
    expect((await get('/assets/app.js')).status).toBe(401);
    expect((await get('/assets/app.js', { cookie: `clab_token_${server.port}=wrong` })).status).toBe(401);
    expect((await get('/?token=wrong')).status).toBe(401);
  });

  it('never serves a file outside the renderer folder', async () => {
    const cookie = `clab_token_${server.port}=${server.token}`;
    for (const path of ['/../clab-secret.txt', '/%2e%2e/clab-secret.txt', '/assets/..%2f..%2fclab-secret.txt', '/missing.js']) {
      const r = await get(path, { cookie });
      expect(r.status, path).toBe(404);
      expect(r.body).not.toContain('secret\n');
    }
  });

  it('refuses other methods and other origins with 403', async () => {
    expect((await get(`/?token=${server.token}`, {}, 'POST')).status).toBe(403);
    expect((await get(`/?token=${server.token}`, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await get(`/?token=${server.token}`, { host: `evil.example:${server.port}` })).status).toBe(403);
  });

  it('says how to build the app when the renderer is not built', async () => {
    const bare = await startLabServer(service, { port: 0, rendererDir: join(rendererDir, 'none') });
    try {
      expect(bare.rendererBuilt).toBe(false);
      const r = await new Promise<Omit<Reply, 'bytes'>>((resolve) => {
        request(`${bare.url}`, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => {
            body += c.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        }).end();
      });
      expect(r.status).toBe(503);
      expect(r.body).toContain('npx electron-vite build');
    } finally {
      await bare.close();
    }
  });
});

describe('the API socket', () => {
  it('refuses a socket without the token', async () => {
    expect(await connect('', server.origin)).toBe(401);
    expect(await connect('?token=wrong', server.origin)).toBe(401);
  });

  it('refuses a socket with the token from another origin, or none', async () => {
    expect(await connect(`?token=${server.token}`, 'http://evil.example')).toBe(403);
    expect(await connect(`?token=${server.token}`, `http://localhost:${server.port + 1}`)).toBe(403);
    expect(await connect(`?token=${server.token}`, undefined)).toBe(403);
  });

  it("answers calls from the page's origin: machine and templates", async () => {
    const ws = await openApi();
    const machine = await call(ws, 'machine', {});
    expect(machine).toMatchObject({ ok: true, value: { fileDialogs: false, backends: { cpu: { available: true } } } });
    const templates = await call(ws, 'templates', {});
    expect((templates.value as { id: string }[]).map((t) => t.id)).toContain('all-in-one.scenario.json');
    ws.close();
  });

  it('answers invalid frames with an error result and keeps serving', async () => {
    const ws = await openApi();
    const notJson = nextFrame(ws, (f) => f.type === 'result');
    ws.send('{not json');
    expect(await notJson).toMatchObject({ ok: false, id: -1, error: 'the frame is not JSON' });
    const wrongVersion = nextFrame(ws, (f) => f.type === 'result');
    ws.send(JSON.stringify({ type: 'call', v: 99, id: 7, call: { method: 'machine', params: {} } }));
    expect(await wrongVersion).toMatchObject({ ok: false, id: 7, error: expect.stringMatching(/^invalid frame: v:/) });
    expect(await call(ws, 'startRun', { text: '{}', file: null, backend: 'cpu', ranks: 0 })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/startRun.*params\.ranks/),
    });
    expect(await call(ws, 'reboot', {})).toMatchObject({ ok: false, error: expect.stringMatching(/unknown method "reboot"/) });
    expect(await call(ws, 'openPath', { path: '/etc/passwd' })).toMatchObject({
      ok: false,
      error: 'openPath is not available in the browser; use download/upload',
    });
    expect(await call(ws, 'machine', {})).toMatchObject({ ok: true });
    ws.close();
  });

  it("pushes a run's events to the page that started it (clients.test.ts: and to no other)", async () => {
    const ws = await openApi();
    const text = JSON.stringify({ version: 1, name: 'pushed', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] });
    const end = nextFrame(ws, (f) => f.type === 'event' && (f.event as { type: string }).type === 'run-end');
    const step = nextFrame(ws, (f) => f.type === 'event' && (f.event as { type: string }).type === 'run-step');
    const started = await call(ws, 'startRun', { text, file: null, backend: 'cpu', ranks: null });
    const runId = (started.value as { runId: string }).runId;
    for (const frame of [await step, await end]) expect(frame.event).toMatchObject({ runId });
    expect(((await end).event as { record: { status: string } }).record.status).toBe('passed');
    ws.close();
  });
});

describe('a saved run over HTTP', () => {
  it('is sent to the page with its token cookie, packed, checked like openRun, and refused without the token or outside the runs folder', async () => {
    const record = syntheticRecord({ ranks: 2, rounds: 1, warmup: 0, iters: 1, name: 'downloaded' });
    const path = join(service.runsDir, 'downloaded.run.json');
    writeFileSync(path, JSON.stringify(record));
    const cookie = `clab_token_${server.port}=${server.token}`;
    const query = `/api/run?path=${encodeURIComponent(path)}`;
    const ok = await get(query, { cookie });
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toBe('application/octet-stream');
    // Its events as binary columns, the rest as the record has it; together, the record.
    expect(unpackRecord(new Uint8Array(ok.bytes), nodeUtf8)).toEqual(record);
    expect(ok.bytes.length).toBeLessThan(JSON.stringify(record).length);
    expect((await get(query)).status).toBe(401);
    const outside = await get(`/api/run?path=${encodeURIComponent(secret)}`, { cookie });
    expect(outside.status).toBe(400);
    expect(JSON.parse(outside.body).error).toMatch(/outside the runs directory/);
    expect(JSON.parse((await get('/api/run', { cookie })).body).error).toMatch(/invalid call to openRun: params\.path/);
  });
});

describe('runs at once', () => {
  it('five runs started together from one page all pass, each with its every step', async () => {
    const ws = await openApi();
    const text = JSON.stringify({
      version: 1,
      name: 'together',
      world: { ranks: 2 },
      steps: [{ op: 'all_reduce', count: 3 }, { op: 'broadcast', count: 3 }, { op: 'barrier' }],
    });
    const runIds: string[] = [];
    const ended = new Map<string, { status: string; error: unknown; steps: unknown[] }>();
    const allEnded = new Promise<void>((done) =>
      ws.on('message', (data) => {
        const frame = JSON.parse(String(data)) as {
          type: string;
          event?: { type: string; runId: string; record: { status: string; error: unknown; steps: unknown[] } };
        };
        if (frame.type !== 'event' || frame.event?.type !== 'run-end') return;
        ended.set(frame.event.runId, frame.event.record);
        if (ended.size === 5) done();
      }),
    );
    const started = await Promise.all(
      Array.from({ length: 5 }, () => call(ws, 'startRun', { text, file: null, backend: 'cpu', ranks: null })),
    );
    for (const s of started) runIds.push((s.value as { runId: string }).runId);
    await allEnded;
    for (const id of runIds) {
      expect(ended.get(id)).toMatchObject({ status: 'passed', error: null });
      expect(ended.get(id)!.steps).toHaveLength(3);
    }
    ws.close();
  });
});

describe('ports', () => {
  it('takes another free port when the preferred one is taken, but not when a port is asked for', async () => {
    const first = await startLabServer(service, { rendererDir });
    const second = await startLabServer(service, { rendererDir });
    try {
      expect(second.port).not.toBe(first.port);
      expect(second.port).toBeGreaterThan(0);
      await expect(startLabServer(service, { port: first.port, rendererDir })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});

/** Live processes whose parent is `parent`. */
function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false;
      }
    });
}

describe('clab serve', () => {
  it('prints its URL on one line; SIGTERM stops the runs, leaves no rank process and exits 0', async () => {
    const child = spawn(process.execPath, ['bin/clab.cjs', 'serve', '--port', '0', '--runs', tempDir('serve-cli')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
    expect(line).toMatch(/^Collective Lab serving at http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}$/);
    const url = new URL(line.slice(line.indexOf('http')));
    const ws = new WebSocket(`ws://${url.host}/api?token=${url.searchParams.get('token')}`, { origin: url.origin });
    await new Promise((resolve) => ws.on('open', resolve));
    const joined = nextFrame(ws, (f) => f.type === 'event' && /^joined/.test((f.event as { line?: { text: string } }).line?.text ?? ''));
    const text = JSON.stringify({
      version: 1,
      name: 'long',
      world: { ranks: 2 },
      steps: [{ op: 'all_reduce', count: 4194304, iters: 5000 }],
    });
    await call(ws, 'startRun', { text, file: null, backend: 'cpu', ranks: null });
    await joined;
    const ranks = childrenOf(child.pid!);
    expect(ranks).toHaveLength(2);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(ranks.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
  });
});
