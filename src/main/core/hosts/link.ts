// One end of a core–worker link: frames over a socket, every message validated on receipt, a
// heartbeat each way, and one close with its cause. Both the core and `clab worker` use it. Until
// `seal`, frames are plain (the handshake); after it every frame either way is sealed (session.ts)
// and a plain or forged one ends the link.
import type { Socket } from 'node:net';
import type { z } from 'zod';
import { parseMessage } from '../../../shared/run/rank/protocol.js';
import { encodeJsonFrame, FrameError, FrameReader, parseJson, splitBody } from './frames.js';
import { Sealer } from './session.js';

/** A heartbeat each second; a link silent for this long is lost (a cut cable or a frozen host closes nothing). */
export const BEAT_INTERVAL_MS = 1000;
export const DEFAULT_SILENCE_MS = 5000;
/**
 * A worker waits twice as long before it gives its rank up: the core, which names the failure,
 * hears of a cut first, before the rank's peers see it die and report that instead.
 */
export const WORKER_SILENCE_MS = 2 * DEFAULT_SILENCE_MS;

export interface LinkOptions<In> {
  schema: z.ZodType<In>;
  /** Who is at the other end, for messages: "the core at 10.0.0.1:7777", "rank 3 (host b)". */
  peer: string;
  limit: number;
  silenceMs?: number;
}

export class FramedLink<In extends { type: string }, Out> {
  private readonly reader: FrameReader;
  private beat: NodeJS.Timeout | null = null;
  private lastHeardMs = Date.now();
  private closed = false;
  private onMessage: (m: In) => void = () => undefined;
  private onClose: (cause: string | null) => void = () => undefined;
  peer: string;
  /** Why this side refused the link, once it did. */
  refusal: string | null = null;
  private sealer: Sealer | null = null;
  /** A plain `refused` is still taken until the first sealed frame: the peer may have refused our proof (it has no key then). */
  private plainRefusalUntilHeard = false;

  constructor(
    readonly socket: Socket,
    private readonly options: LinkOptions<In>,
  ) {
    this.reader = new FrameReader(options.limit);
    this.peer = options.peer;
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 1000);
    socket.on('data', (chunk) => this.receive(chunk));
    socket.on('error', (e) => this.close(`${e.message}`));
    socket.on('close', () => this.close('the connection closed'));
  }

  /** Handlers: each message in order; the close, once (cause null: closed by this side without a fault). */
  listen(onMessage: (m: In) => void, onClose: (cause: string | null) => void): this {
    this.onMessage = onMessage;
    this.onClose = onClose;
    return this;
  }

  /**
   * From now on every frame sent is sealed with `keys.send` and every frame received must be sealed
   * with `keys.receive`, in order. `plainRefusal`: the peer may still refuse in plain text until its
   * first sealed frame (it has not checked our proof yet).
   */
  seal(keys: { send: Buffer; receive: Buffer }, plainRefusal = false): void {
    this.sealer = new Sealer(keys);
    this.plainRefusalUntilHeard = plainRefusal;
  }

  /** The bound on one message: small until the peer is known. */
  setLimit(limit: number): void {
    this.reader.limit = limit;
  }

  /** Starts the heartbeat: a beat each second, and the link lost after `silenceMs` without a message. */
  startHeartbeat(beat: Out): void {
    const silenceMs = this.options.silenceMs ?? DEFAULT_SILENCE_MS;
    this.lastHeardMs = Date.now();
    this.beat = setInterval(
      () => {
        const silent = Date.now() - this.lastHeardMs;
        if (silent > silenceMs)
          return this.close(`nothing heard for ${(silent / 1000).toFixed(1)} s (the host, its network or its worker is gone)`);
        this.send(beat);
      },
      Math.min(BEAT_INTERVAL_MS, silenceMs / 3),
    );
    this.beat.unref?.();
  }

  send(message: Out): void {
    this.sendJson(JSON.stringify(message));
  }

  /** A message's JSON already made (and so not checked against Out: the caller made it from one). */
  sendJson(json: string): void {
    if (this.closed || this.socket.destroyed) return;
    this.socket.write(this.frame(json));
  }

  private frame(json: string): Buffer {
    return this.sealer ? this.sealer.seal(Buffer.from(json, 'utf8')) : encodeJsonFrame(json);
  }

  /** Sends `message` last and closes once it is written. */
  end(message?: Out): void {
    if (this.closed) return;
    if (message !== undefined) this.socket.end(this.frame(JSON.stringify(message)));
    else this.socket.end();
    this.finish(null);
    // A peer that never reads must not hold the socket open.
    setTimeout(() => this.socket.destroy(), 1000).unref?.();
  }

  /** Closes at once; the close handler hears `cause`. */
  close(cause: string | null): void {
    if (this.closed) return;
    this.socket.destroy();
    this.finish(cause);
  }

  /** Tells the peer why (a `refused` message, the same on both sides), then closes; the close handler hears `reason`. */
  refuse(reason: string): void {
    if (this.closed) return;
    this.refusal = reason;
    this.socket.end(this.frame(JSON.stringify({ type: 'refused', reason })));
    setTimeout(() => this.socket.destroy(), 1000).unref?.();
    this.finish(reason);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private finish(cause: string | null): void {
    this.closed = true;
    if (this.beat) clearInterval(this.beat);
    this.onClose(cause);
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    this.lastHeardMs = Date.now();
    let bodies: Buffer[];
    try {
      bodies = this.reader.push(chunk);
    } catch (e) {
      return this.refuse((e as Error).message);
    }
    for (const body of bodies) {
      if (this.closed) return;
      let m: In;
      try {
        m = parseMessage(this.options.schema, this.open(body), this.peer);
      } catch (e) {
        return this.refuse((e as Error).message);
      }
      if (m.type !== 'beat') this.onMessage(m);
    }
  }

  /** A frame's message, its seal checked once the link is sealed. */
  private open(body: Buffer): unknown {
    const frame = splitBody(body);
    if (!this.sealer) {
      if (frame.sealed) throw new FrameError('a sealed message before the handshake ended');
      return parseJson(frame.text);
    }
    if (!frame.sealed && this.plainRefusalUntilHeard && !this.sealer.heard) {
      const m = parseJson(frame.text);
      if ((m as { type?: unknown } | null)?.type === 'refused') return m;
    }
    return parseJson(this.sealer.open(frame));
  }
}
