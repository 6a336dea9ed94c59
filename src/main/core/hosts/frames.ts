// Messages over TCP: each a 4-byte big-endian length, then that many bytes. A plain frame's body
// is JSON (it begins with `{`): the handshake's, and a refusal. A sealed frame's body is the byte
// 0x01, a 32-byte HMAC-SHA256 under the sender's session key of its sequence number and text, and
// the JSON text (session.ts). A length over the reader's bound is refused before any of its bytes
// are kept.
export class FrameError extends Error {
  constructor(
    message: string,
    readonly code = 'CLAB_LINK_FRAME',
  ) {
    super(message);
  }
}

const HEADER = 4;
/** The first byte of a sealed frame's body (a plain one begins with `{`). */
export const SEALED = 0x01;
export const MAC_BYTES = 32;

export function encodeFrame(message: unknown): Buffer {
  return encodeJsonFrame(JSON.stringify(message));
}

/** A plain frame of JSON text already made. */
export function encodeJsonFrame(json: string): Buffer {
  const body = Buffer.from(json, 'utf8');
  const frame = Buffer.allocUnsafe(HEADER + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, HEADER);
  return frame;
}

/** A sealed frame: `mac` (made by the caller over the sequence number and `text`) before the text. */
export function encodeSealedFrame(text: Buffer, mac: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(HEADER + 1 + MAC_BYTES + text.length);
  frame.writeUInt32BE(1 + MAC_BYTES + text.length, 0);
  frame[HEADER] = SEALED;
  mac.copy(frame, HEADER + 1);
  text.copy(frame, HEADER + 1 + MAC_BYTES);
  return frame;
}

/** One frame's body taken apart: a plain JSON text, or a sealed one with its MAC. */
export type FrameBody = { sealed: false; text: Buffer } | { sealed: true; mac: Buffer; text: Buffer };

export function splitBody(body: Buffer): FrameBody {
  if (body.length > 0 && body[0] === SEALED) {
    if (body.length < 1 + MAC_BYTES) throw new FrameError('a sealed message shorter than its MAC');
    return { sealed: true, mac: body.subarray(1, 1 + MAC_BYTES), text: body.subarray(1 + MAC_BYTES) };
  }
  return { sealed: false, text: body };
}

/** JSON text to a value; FrameError when it is not JSON. */
export function parseJson(text: Buffer): unknown {
  try {
    return JSON.parse(text.toString('utf8'));
  } catch {
    throw new FrameError('a message that is not JSON');
  }
}

/** Cuts a byte stream into frame bodies. `limit` is the largest body it accepts; it may change (after the handshake). */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(public limit: number) {}

  /** The bodies complete so far; throws FrameError for a frame over the limit. */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const bodies: Buffer[] = [];
    for (;;) {
      if (this.buffered < HEADER) return bodies;
      const head = this.chunks.length === 1 ? this.chunks[0] : this.join();
      const length = head.readUInt32BE(0);
      if (length > this.limit)
        throw new FrameError(`a message of ${length} bytes is over the bound of ${this.limit} bytes`, 'CLAB_LINK_TOO_LARGE');
      if (this.buffered < HEADER + length) return bodies;
      const all = this.join();
      bodies.push(all.subarray(HEADER, HEADER + length));
      const rest = all.subarray(HEADER + length);
      this.chunks = rest.length ? [rest] : [];
      this.buffered = rest.length;
    }
  }

  private join(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0];
  }
}
