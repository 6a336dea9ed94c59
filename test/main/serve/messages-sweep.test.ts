// Hostile frames on `clab serve`'s API socket: any text, any JSON, and calls of every method with
// any parameters each get exactly one answer (a result, ok or not, valid on the wire), and the
// socket keeps serving; no frame starts a rank process.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { API_VERSION, wsServerMessageSchema } from '../../../src/shared/run/api/api';
import { LabService } from '../../../src/main/core/service/lab-service';
import { createApiSocket } from '../../../src/main/serve/api-socket';

const runsDir = mkdtempSync(join(tmpdir(), 'clab-serve-frames-'));
const service = new LabService({ runsDir });
const api = createApiSocket(service);
const server = createServer();
server.on('upgrade', (req, socket, head) => api.sockets.handleUpgrade(req, socket, head, (ws) => api.sockets.emit('connection', ws, req)));
let ws: WebSocket;
const started: string[] = [];
service.onEvent((e) => {
  if (e.type === 'run-log') started.push(e.runId);
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ws = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  await new Promise((resolve, reject) => ws.on('open', resolve).on('error', reject));
});
afterAll(async () => {
  ws.close();
  api.stop();
  await service.dispose();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  rmSync(runsDir, { recursive: true, force: true });
});

/**
 * A call sent once the frame's first answer is in: a second answer to the frame, sent as the
 * first was, comes before the call's own. Its ids lie past the 32-bit ids of the swept frames.
 */
let marks = 2 ** 40;
const markCall = (id: number) =>
  JSON.stringify({ type: 'call', v: API_VERSION, id, call: { method: 'runStatus', params: { runId: 'mark' } } });

/**
 * Sends one frame; resolves with the frames that came back (each checked against the wire schema)
 * until the answer to a marking call sent after the first of them, or by 5 s when none came.
 */
function exchange(frame: string | Buffer): Promise<unknown[]> {
  return new Promise((resolve) => {
    const got: unknown[] = [];
    let mark: number | null = null;
    const done = () => {
      ws.off('message', onMessage);
      clearTimeout(timer);
      resolve(got);
    };
    const onMessage = (data: WebSocket.RawData) => {
      const m = wsServerMessageSchema.parse(JSON.parse(data.toString()));
      if (mark !== null && m.type === 'result' && m.id === mark) return done();
      got.push(m);
      if (got.length === 1) {
        mark = ++marks;
        ws.send(markCall(mark));
      }
    };
    const timer = setTimeout(done, 5000);
    ws.on('message', onMessage);
    ws.send(frame);
  });
}

const METHODS = [
  'machine',
  'templates',
  'checkBackend',
  'startRun',
  'stopRun',
  'nextStep',
  'listRuns',
  'runStatus',
  'openRun',
  'saveScenario',
  'openFile',
  'openPath',
  'constructor',
  '__proto__',
  'toString',
  'dispose',
];
const hostile = fc.oneof(
  fc.constantFrom(null, -1, 0, 1e300, '', '../../etc/passwd', '/dev/zero', '\u001b[2J', '__proto__', [], {}, 'x'.repeat(10_000)),
  fc.jsonValue({ maxDepth: 3 }),
);
// startRun's text is never a valid scenario here (the sweep starts no rank process).
const params = fc.oneof(
  hostile,
  fc.dictionary(fc.constantFrom('text', 'file', 'backend', 'ranks', 'stepMode', 'path', 'runId', 'world', 'devices', 'x'), hostile),
);
const frames = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc
    .record({
      type: fc.constantFrom('call', 'result', 'event', 'x'),
      v: fc.constantFrom(API_VERSION, 0, 2, '1'),
      id: fc.oneof(fc.integer(), fc.constant(1.5), fc.string()),
      call: fc.record({ method: fc.constantFrom(...METHODS), params }),
    })
    .map((v) => JSON.stringify(v)),
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
);

describe('hostile frames on the API socket', () => {
  it('each get exactly one result, and the socket keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(frames, async (frame) => {
        const got = await exchange(frame);
        expect(got).toHaveLength(1);
        expect(got[0]).toMatchObject({ type: 'result' });
      }),
      { numRuns: 150 },
    );
    const [answer] = await exchange(JSON.stringify({ type: 'call', v: API_VERSION, id: 1, call: { method: 'machine', params: {} } }));
    expect(answer).toMatchObject({ type: 'result', id: 1, ok: true });
    expect(started).toEqual([]);
  }, 120_000);
});
