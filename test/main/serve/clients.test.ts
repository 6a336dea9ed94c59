// Clients of `clab serve` that stop taking part: one that never reads its socket is disconnected
// past a bound instead of buffered for without limit, and a run paused in step mode whose last
// page went away is stopped after the stated time instead of holding its ranks for ever. And many
// pages at once: a run's events go to the pages that follow it, not to every page connected.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { API_VERSION, type ApiEvent } from '../../../src/shared/run/api/api';
import { LabService } from '../../../src/main/core/service/lab-service';
import { createApiSocket } from '../../../src/main/serve/api-socket';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An HTTP server whose upgrades go to the API socket, as server.ts wires it (without its access checks). */
async function apiServer(service: LabService, maxBufferedBytes?: number) {
  const api = createApiSocket(service, { maxBufferedBytes });
  const server: Server = createServer();
  server.on('upgrade', (req, socket, head) =>
    api.sockets.handleUpgrade(req, socket, head, (ws) => api.sockets.emit('connection', ws, req)),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const connect = () =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.on('open', () => resolve(ws));
      ws.on('error', reject);
    });
  const close = () =>
    new Promise<void>((resolve) => {
      api.stop();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { api, connect, close };
}

describe('a client that never reads', () => {
  it('is disconnected once more than the bound waits unsent to it, and the others still get every event', async () => {
    let emit: (e: ApiEvent) => void = () => undefined;
    const fake = {
      onEvent: (l: (e: ApiEvent) => void) => {
        emit = l;
        return () => undefined;
      },
      setAttended: () => undefined,
    } as unknown as LabService;
    const { api, connect, close } = await apiServer(fake, 4 * 1024 * 1024);
    try {
      const reader = await connect();
      let read = 0;
      reader.on('message', () => {
        read++;
      });
      const stalled = await connect();
      (stalled as unknown as { _socket: { pause(): void } })._socket.pause();
      // An event for every page: a run's go only to the pages that follow it.
      const file = { kind: 'scenario' as const, path: 'big.scenario.json', text: 'x'.repeat(256 * 1024) };
      let sent = 0;
      for (let round = 0; round < 400 && api.sockets.clients.size === 2; round++) {
        for (let i = 0; i < 4; i++, sent++) emit({ type: 'open-file', file });
        await sleep(5);
      }
      expect(api.sockets.clients.size).toBe(1);
      for (let i = 0; i < 100 && read < sent; i++) await sleep(20);
      expect(read).toBe(sent);
      reader.close();
    } finally {
      await close();
    }
  }, 30_000);
});

describe('a run paused with no page connected', () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'clab-unattended-'));
  const service = new LabService({ runsDir, unattendedPauseMs: 300 });
  afterAll(async () => {
    await service.dispose();
    rmSync(runsDir, { recursive: true, force: true });
  });

  it('is stopped after the stated time once its last page has gone, and says why', async () => {
    const { connect, close } = await apiServer(service);
    try {
      const page = await connect();
      const events: ApiEvent[] = [];
      service.onEvent((e) => events.push(e));
      const text = JSON.stringify({
        version: 1,
        name: 'paused',
        world: { ranks: 2 },
        backend: 'cpu',
        steps: [
          { op: 'all_reduce', count: 4 },
          { op: 'broadcast', count: 4 },
        ],
      });
      page.send(
        JSON.stringify({
          type: 'call',
          v: API_VERSION,
          id: 1,
          call: { method: 'startRun', params: { text, file: null, backend: 'cpu', ranks: null, stepMode: true } },
        }),
      );
      for (let i = 0; i < 300 && !events.some((e) => e.type === 'run-paused'); i++) await sleep(50);
      expect(events.some((e) => e.type === 'run-paused')).toBe(true);
      page.close();
      let end: ApiEvent | undefined;
      for (let i = 0; i < 300 && !(end = events.find((e) => e.type === 'run-end')); i++) await sleep(50);
      expect(end).toMatchObject({
        type: 'run-end',
        record: { status: 'aborted', error: { code: 'CLAB_STOPPED', message: 'paused in step mode with no window connected for 0.3 s' } },
      });
    } finally {
      await close();
    }
  }, 40_000);
});

describe('many pages connected while a run goes', () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'clab-audience-'));
  const service = new LabService({ runsDir, packedRunDir: null });
  afterAll(async () => {
    await service.dispose();
    rmSync(runsDir, { recursive: true, force: true });
  });

  it("sends a run's events to the page that started it and one that asked after it, and none to the 18 others", async () => {
    const { connect, close } = await apiServer(service);
    try {
      const pages = await Promise.all(Array.from({ length: 20 }, connect));
      const frames = pages.map(() => [] as { type: string; id?: number; value?: unknown; event?: ApiEvent }[]);
      pages.forEach((page, i) => page.on('message', (data) => frames[i].push(JSON.parse(String(data)))));
      let nextId = 1;
      const call = async (i: number, method: string, params: unknown) => {
        const id = nextId++;
        pages[i].send(JSON.stringify({ type: 'call', v: API_VERSION, id, call: { method, params } }));
        for (let t = 0; t < 600 && !frames[i].some((f) => f.id === id); t++) await sleep(20);
        return frames[i].find((f) => f.id === id)?.value as Record<string, unknown>;
      };
      const eventsOf = (i: number, type: string) => frames[i].filter((f) => f.event?.type === type);
      const text = JSON.stringify({
        version: 1,
        name: 'followed',
        world: { ranks: 2 },
        backend: 'cpu',
        steps: [{ op: 'all_reduce', count: 4 }],
      });
      // Step mode: the run waits before its step until page 0 says, so page 1 asks while it goes.
      const started = await call(0, 'startRun', { text, file: null, backend: 'cpu', ranks: null, stepMode: true });
      for (let t = 0; t < 600 && eventsOf(0, 'run-paused').length === 0; t++) await sleep(20);
      expect(await call(1, 'runStatus', { runId: started.runId })).toMatchObject({ state: 'running' });
      expect(await call(0, 'nextStep', { runId: started.runId })).toEqual({ resumed: true });
      for (let t = 0; t < 600 && eventsOf(1, 'run-end').length === 0; t++) await sleep(20);
      for (const i of [0, 1]) {
        expect(eventsOf(i, 'run-step')).toHaveLength(1);
        expect(eventsOf(i, 'run-end')).toMatchObject([{ event: { runId: started.runId, record: { status: 'passed' } } }]);
      }
      // Each answer comes after every frame sent before it on its socket: an event sent to the
      // others would be in their frames by then.
      for (let i = 2; i < pages.length; i++) await call(i, 'runStatus', { runId: 'none' });
      expect(pages.slice(2).map((_, i) => frames[i + 2].filter((f) => f.type === 'event').length)).toEqual(Array(18).fill(0));
      for (const page of pages) page.close();
    } finally {
      await close();
    }
  }, 40_000);
});
