// Clients of `clab serve` that stop taking part: one that never reads its socket is disconnected
// past a bound instead of buffered for without limit, and a run paused in step mode whose last
// page went away is stopped after the stated time instead of holding its ranks for ever.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { API_VERSION, type ApiEvent } from '../../../src/shared/run/api';
import { LabService } from '../../../src/main/core/lab-service';
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
      const line = { rank: 0, atNs: 0, text: 'x'.repeat(256 * 1024) };
      let sent = 0;
      for (let round = 0; round < 400 && api.sockets.clients.size === 2; round++) {
        for (let i = 0; i < 4; i++, sent++) emit({ type: 'run-log', runId: 'r', line });
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
