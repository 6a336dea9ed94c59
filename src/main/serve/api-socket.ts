// The lab API over a WebSocket: JSON text frames, each inbound frame validated, each call
// answered by a `result` frame with its id, and lab events pushed: a run's to the pages that follow
// it (run-audience.ts), the others to every page.
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { z } from 'zod';
import { API_VERSION, wsClientMessageSchema, type ApiCall, type ApiEvent } from '../../shared/run/api/api.js';
import { dispatch } from '../core/service/dispatch.js';
import type { LabService } from '../core/service/lab-service.js';
import { RunAudience, runFollowed } from './run-audience.js';

/** The envelope alone; dispatch() checks the call itself and names the method and parameter at fault. */
const envelopeSchema = wsClientMessageSchema.extend({ call: z.unknown() });

/** Answers to frames too broken to carry an id use this one. */
const NO_ID = -1;

/** Room for the largest call (8 MiB of scenario text) and its envelope. */
const MAX_FRAME_BYTES = 9 * 1024 * 1024;

/**
 * What may wait unsent to one client (a record opened over the socket is at most 64 MiB): a client
 * that reads nothing while runs go is disconnected past it, rather than buffered for without
 * bound. The page reconnects and asks for the state of its run (runStatus).
 */
export const MAX_BUFFERED_BYTES = 96 * 1024 * 1024;

/**
 * A message as the bytes of one text frame, made once however many pages it goes to: given a
 * string, ws would encode it again for every socket.
 */
function encodeFrame(message: unknown): Buffer {
  return Buffer.from(JSON.stringify(message));
}

/** Sends `frame`, or disconnects a client that has left more than `maxBuffered` bytes unread. */
function sendFrame(ws: WebSocket, frame: Buffer, maxBuffered: number): void {
  if (ws.readyState !== ws.OPEN) return;
  if (ws.bufferedAmount > maxBuffered) return ws.terminate();
  ws.send(frame, { binary: false });
}

type Send = (ws: WebSocket, message: unknown) => void;

function answerError(send: Send, ws: WebSocket, id: number, error: string): void {
  send(ws, { type: 'result', v: API_VERSION, id, ok: false, error });
}

function onFrame(send: Send, audience: RunAudience, ws: WebSocket, service: LabService, data: RawData, isBinary: boolean): void {
  if (isBinary) return answerError(send, ws, NO_ID, 'expected a JSON text frame');
  let frame: unknown;
  try {
    frame = JSON.parse(data.toString());
  } catch {
    return answerError(send, ws, NO_ID, 'the frame is not JSON');
  }
  const envelope = envelopeSchema.safeParse(frame);
  if (!envelope.success) {
    const id = (frame as { id?: unknown } | null)?.id;
    const issue = envelope.error.issues[0];
    return answerError(
      send,
      ws,
      Number.isInteger(id) ? (id as number) : NO_ID,
      `invalid frame: ${issue.path.map(String).join('.') || '(frame)'}: ${issue.message}`,
    );
  }
  const { id, call } = envelope.data;
  dispatch(service, call).then(
    (value) => {
      // Answered, so the call was valid. Followed before the answer goes: the run's events wait for it (lab-service.ts).
      const runId = runFollowed(call as ApiCall, value);
      if (runId !== null) audience.follow(runId, ws);
      send(ws, { type: 'result', v: API_VERSION, id, ok: true, value });
    },
    (e: Error) => answerError(send, ws, id, e.message),
  );
}

export interface ApiSocketOptions {
  /** Unsent bytes past which a client is disconnected (MAX_BUFFERED_BYTES). */
  maxBufferedBytes?: number;
}

export function createApiSocket(service: LabService, options: ApiSocketOptions = {}): { sockets: WebSocketServer; stop(): void } {
  const maxBufferedBytes = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  const send: Send = (ws, message) => sendFrame(ws, encodeFrame(message), maxBufferedBytes);
  const audience = new RunAudience();
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  // A run paused in step mode with no page left to resume it is stopped in time (lab-service.ts).
  const attended = () => service.setAttended([...sockets.clients].some((ws) => ws.readyState === ws.OPEN));
  sockets.on('connection', (ws) => {
    ws.on('message', (data, isBinary) => onFrame(send, audience, ws, service, data, isBinary));
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      audience.leave(ws);
      attended();
    });
    attended();
  });
  const unsubscribe = service.onEvent((event: ApiEvent) => {
    const pages = [...audience.pagesFor(event, sockets.clients)];
    if (pages.length === 0) return;
    const frame = encodeFrame({ type: 'event', v: API_VERSION, event });
    for (const ws of pages) sendFrame(ws, frame, maxBufferedBytes);
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
