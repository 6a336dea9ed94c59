// The browser's client of `clab serve`: a call made while its socket is closing (the page has not
// heard the close yet) is not written to that socket, where the browser would refuse it with a
// console error, but waits and goes out on the next connection.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocketLabClient } from '../../../src/renderer/src/client/ws-client';

class FakeSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static made: FakeSocket[] = [];
  readyState = FakeSocket.CONNECTING;
  sent: string[] = [];
  onopen: (() => void) | null = null;
  onclose: (() => void) | null = null;
  onmessage: ((m: { data: unknown }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.made.push(this);
  }
  send(frame: string): void {
    if (this.readyState !== FakeSocket.OPEN) throw new Error('WebSocket is already in CLOSING or CLOSED state.');
    this.sent.push(frame);
  }
  open(): void {
    this.readyState = FakeSocket.OPEN;
    this.onopen?.();
  }
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  FakeSocket.made = [];
});

describe('WebSocketLabClient', () => {
  it('keeps a call made while the socket closes for the next connection', async () => {
    vi.useFakeTimers();
    vi.stubGlobal('WebSocket', FakeSocket);
    const client = new WebSocketLabClient('ws://127.0.0.1:1/api');
    const first = FakeSocket.made[0];
    first.open();
    first.readyState = FakeSocket.CLOSING; // closed by the other side; the close event is still to come
    const answer = client.call('machine', {} as never);
    answer.catch(() => undefined);
    expect(first.sent).toEqual([]);
    first.readyState = FakeSocket.CLOSED;
    first.onclose?.();
    await vi.advanceTimersByTimeAsync(1000); // the first retry comes after 0.5 s ± 25 %
    const second = FakeSocket.made[1];
    expect(second).toBeDefined();
    second.open();
    expect(second.sent.map((f) => (JSON.parse(f) as { call: { method: string } }).call.method)).toEqual(['machine']);
  });
});
