// Messages over TCP: each a 4-byte big-endian length, then that many bytes of JSON. A length
// over the reader's bound is refused before any of its bytes are kept.
export class FrameError extends Error {
  constructor(
    message: string,
    readonly code = 'CLAB_LINK_FRAME',
  ) {
    super(message);
  }
}

const HEADER = 4;

export function encodeFrame(message: unknown): Buffer {
  return encodeJsonFrame(JSON.stringify(message));
}

/** A frame of JSON text already made. */
export function encodeJsonFrame(json: string): Buffer {
  const body = Buffer.from(json, 'utf8');
  const frame = Buffer.allocUnsafe(HEADER + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, HEADER);
  return frame;
}

/** Cuts a byte stream into messages. `limit` is the largest body it accepts; it may change (after the handshake). */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(public limit: number) {}

  /** The messages complete so far; throws FrameError for a frame over the limit or one that is not JSON. */
  push(chunk: Buffer): unknown[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const messages: unknown[] = [];
    for (;;) {
      if (this.buffered < HEADER) return messages;
      const head = this.chunks.length === 1 ? this.chunks[0] : this.join();
      const length = head.readUInt32BE(0);
      if (length > this.limit)
        throw new FrameError(`a message of ${length} bytes is over the bound of ${this.limit} bytes`, 'CLAB_LINK_TOO_LARGE');
      if (this.buffered < HEADER + length) return messages;
      const all = this.join();
      const body = all.subarray(HEADER, HEADER + length);
      const rest = all.subarray(HEADER + length);
      this.chunks = rest.length ? [rest] : [];
      this.buffered = rest.length;
      try {
        messages.push(JSON.parse(body.toString('utf8')));
      } catch {
        throw new FrameError('a message that is not JSON');
      }
    }
  }

  private join(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0];
  }
}
