// The lab API over a WebSocket: JSON text frames, each inbound frame validated, each call
// answered by a `result` frame with its id, and every lab event pushed to every client.
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { z } from 'zod';
import { API_VERSION, wsClientMessageSchema, type ApiEvent } from '../../shared/run/api.js';
import { dispatch } from '../core/dispatch.js';
import type { LabService } from '../core/lab-service.js';

/** The envelope alone; dispatch() checks the call itself and names the method and parameter at fault. */
const envelopeSchema = wsClientMessageSchema.extend({ call: z.unknown() });

/** Answers to frames too broken to carry an id use this one. */
const NO_ID = -1;

/** Room for the largest call (8 MiB of scenario text) and its envelope. */
const MAX_FRAME_BYTES = 9 * 1024 * 1024;

function send(ws: WebSocket, message: unknown): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
}

function answerError(ws: WebSocket, id: number, error: string): void {
  send(ws, { type: 'result', v: API_VERSION, id, ok: false, error });
}

function onFrame(ws: WebSocket, service: LabService, data: RawData, isBinary: boolean): void {
  if (isBinary) return answerError(ws, NO_ID, 'expected a JSON text frame');
  let frame: unknown;
  try {
    frame = JSON.parse(data.toString());
  } catch {
    return answerError(ws, NO_ID, 'the frame is not JSON');
  }
  const envelope = envelopeSchema.safeParse(frame);
  if (!envelope.success) {
    const id = (frame as { id?: unknown } | null)?.id;
    const issue = envelope.error.issues[0];
    return answerError(ws, Number.isInteger(id) ? (id as number) : NO_ID, `invalid frame: ${issue.path.map(String).join('.') || '(frame)'}: ${issue.message}`);
  }
  const { id, call } = envelope.data;
  dispatch(service, call).then(
    (value) => send(ws, { type: 'result', v: API_VERSION, id, ok: true, value }),
    (e: Error) => answerError(ws, id, e.message),
  );
}

export function createApiSocket(service: LabService): { sockets: WebSocketServer; stop(): void } {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  sockets.on('connection', (ws) => {
    ws.on('message', (data, isBinary) => onFrame(ws, service, data, isBinary));
    ws.on('error', () => ws.terminate());
  });
  const unsubscribe = service.onEvent((event: ApiEvent) => {
    const frame = JSON.stringify({ type: 'event', v: API_VERSION, event });
    for (const ws of sockets.clients) if (ws.readyState === ws.OPEN) ws.send(frame);
  });
  return {
    sockets,
    stop() {
      unsubscribe();
      for (const ws of sockets.clients) ws.close(1001, 'the lab server is closing');
      sockets.close();
    },
  };
}
