// Stand-ins for the link tests: a raw peer that speaks frames by hand, and an on-path host (a
// proxy) that sees every frame each way and may change, drop, repeat or add frames. Everything
// they open is closed by closeAll().
import { createServer, connect, type Server, type Socket } from 'node:net';
import { encodeFrame, FrameReader, parseJson, splitBody } from '../../../../src/main/core/hosts/frames';

const servers: Server[] = [];
const sockets: Socket[] = [];

export function closeAll(): void {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers.splice(0)) s.close();
}

/** A frame's body with its 4-byte length in front again. */
export const frameOf = (body: Buffer): Buffer => {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
};

/** A plain frame's message; null for a sealed one. */
export const plainMessage = (body: Buffer): { type: string; [k: string]: unknown } | null => {
  const f = splitBody(body);
  return f.sealed ? null : (parseJson(f.text) as { type: string });
};

/** A server on loopback; `onPeer` gets each connection and the frame bodies it sends. */
export async function standIn(onPeer: (socket: Socket, bodies: (each: (body: Buffer) => void) => void) => void): Promise<number> {
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    const reader = new FrameReader(1 << 24);
    let each: (body: Buffer) => void = () => undefined;
    socket.on('data', (d) => {
      for (const b of reader.push(d)) each(b);
    });
    onPeer(socket, (f) => (each = f));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
}

/** Which way a frame goes through the proxy. */
export type Way = 'to-worker' | 'to-core';

/**
 * An on-path host between workers and the core at `port`: every frame each way goes through
 * `change` (its index that way, counted per connection), which returns the bodies to pass on.
 * `seen` keeps every body that passed, per way.
 */
export async function onPath(
  port: number,
  change: (way: Way, body: Buffer, index: number) => Buffer[] = (_, b) => [b],
): Promise<{ port: number; seen: Record<Way, Buffer[]> }> {
  const seen: Record<Way, Buffer[]> = { 'to-worker': [], 'to-core': [] };
  const proxyPort = await standIn((worker) => {
    const core = connect({ host: '127.0.0.1', port });
    sockets.push(core);
    core.on('error', () => worker.destroy());
    worker.on('close', () => core.destroy());
    core.on('close', () => worker.destroy());
    const pipe = (from: Socket, to: Socket, way: Way) => {
      const reader = new FrameReader(1 << 28);
      let index = 0;
      from.on('data', (d) => {
        for (const body of reader.push(d))
          for (const out of change(way, body, index++)) {
            seen[way].push(out);
            to.write(frameOf(out));
          }
      });
    };
    pipe(core, worker, 'to-worker');
    // The worker's frames go through the stand-in's own reader (its first one may come before the core answers).
    worker.removeAllListeners('data');
    pipe(worker, core, 'to-core');
  });
  return { port: proxyPort, seen };
}

export { encodeFrame };
