// The link after both ends proved the token: a session key from the token and both ends' fresh
// nonces, one key per direction, and every frame sealed with HMAC-SHA256 over its sequence number
// and text. A frame changed, dropped, replayed (from this link or another session) or reordered
// fails its MAC, since the receiver counts frames itself. Frames are not encrypted: an on-path host
// can read a plan or a result, but it cannot change or inject one (docs/ARCHITECTURE.md, "Trust").
import { createHmac, timingSafeEqual } from 'node:crypto';
import { encodeSealedFrame, FrameError, MAC_BYTES, type FrameBody } from './frames.js';

export type Role = 'core' | 'worker';

/** The two directions' keys for `role`'s end: HMAC(token, both nonces), then one key per direction. */
export function sessionKeys(token: string, workerNonce: string, coreNonce: string, role: Role): { send: Buffer; receive: Buffer } {
  const session = createHmac('sha256', token).update(`clab link session\n${workerNonce}\n${coreNonce}`).digest();
  const direction = (from: Role) => createHmac('sha256', session).update(`from the ${from}`).digest();
  const other: Role = role === 'core' ? 'worker' : 'core';
  return { send: direction(role), receive: direction(other) };
}

const macOf = (key: Buffer, seq: bigint, text: Buffer): Buffer => {
  const counter = Buffer.allocUnsafe(8);
  counter.writeBigUInt64BE(seq, 0);
  return createHmac('sha256', key).update(counter).update(text).digest();
};

/** One end's sealing: its own count of frames sent and received. */
export class Sealer {
  private sent = 0n;
  private received = 0n;

  constructor(private readonly keys: { send: Buffer; receive: Buffer }) {}

  /** `text` as the next sealed frame. */
  seal(text: Buffer): Buffer {
    const frame = encodeSealedFrame(text, macOf(this.keys.send, this.sent, text));
    this.sent++;
    return frame;
  }

  /** The text of the next frame received; FrameError when it is not the next one sealed by the peer. */
  open(body: FrameBody): Buffer {
    if (!body.sealed) throw new FrameError('an unsealed message after the handshake', 'CLAB_LINK_FORGED');
    const expected = macOf(this.keys.receive, this.received, body.text);
    if (body.mac.length !== MAC_BYTES || !timingSafeEqual(body.mac, expected))
      throw new FrameError(
        `message ${this.received} fails its seal (changed, injected, replayed or out of order on the way)`,
        'CLAB_LINK_FORGED',
      );
    this.received++;
    return body.text;
  }

  /** Whether any sealed frame has come yet (until then, a plain refusal may still come: the peer may not have the key). */
  get heard(): boolean {
    return this.received > 0n;
  }
}
