// `clab serve` refuses what does not come from its own page: no token, a foreign Origin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { API_VERSION, machineInfoSchema, wsServerMessageSchema } from '../../src/shared/run/api/api';
import { startLabServer, type LabServerProcess } from './helpers';

let server: LabServerProcess;
beforeAll(async () => {
  server = await startLabServer();
});
afterAll(async () => {
  await server?.stop();
});

/** Opens the API socket: the open socket, or the HTTP status the upgrade was refused with. */
function openSocket(query: string, origin: string | null): Promise<WebSocket | number> {
  const url = `${server.origin.replace('http', 'ws')}/api${query}`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, origin === null ? {} : { origin });
    ws.on('open', () => resolve(ws));
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', reject);
  });
}

describe('clab serve access', () => {
  it('answers the page without a token with 401 and with the token with the app', async () => {
    expect((await fetch(`${server.origin}/`)).status).toBe(401);
    const page = await fetch(server.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root"></div>');
  });

  it('refuses the API socket without a token, with a wrong token, or from another origin', async () => {
    expect(await openSocket('', server.origin)).toBe(401);
    expect(await openSocket('?token=wrong', server.origin)).toBe(401);
    expect(await openSocket(`?token=${server.token}`, 'http://evil.example')).toBe(403);
    expect(await openSocket(`?token=${server.token}`, null)).toBe(403);
  });

  it('answers a call on a socket with the token from its own origin', async () => {
    const ws = await openSocket(`?token=${server.token}`, server.origin);
    if (typeof ws === 'number') throw new Error(`refused with ${ws}`);
    const reply = new Promise<unknown>((resolve) => ws.once('message', (data) => resolve(JSON.parse(String(data)))));
    ws.send(JSON.stringify({ type: 'call', v: API_VERSION, id: 1, call: { method: 'machine', params: {} } }));
    const message = wsServerMessageSchema.parse(await reply);
    ws.close();
    expect(message.type === 'result' && message.ok).toBe(true);
    if (message.type === 'result' && message.ok) expect(machineInfoSchema.parse(message.value).backends.cpu.available).toBe(true);
  });
});
