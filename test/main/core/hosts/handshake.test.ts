// The core's listener and the worker's side of the link in one process: every refusal said on both sides.
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteRanks } from '../../../../src/main/core/hosts/listener';
import { runRemoteWorker } from '../../../../src/main/core/hosts/remote-worker';
import { encodeFrame, FrameReader, parseJson, splitBody } from '../../../../src/main/core/hosts/frames';
import { LINK_VERSION } from '../../../../src/shared/run/hosts/hosts';
import { PROTOCOL_VERSION } from '../../../../src/shared/run/rank/protocol';
import type { WorkerHandlers } from '../../../../src/main/core/run/workers';

const TOKEN = '3f9c0e7a51d24b86'.repeat(4);
const handlers: WorkerHandlers = { message: () => undefined, output: () => undefined, exit: () => undefined, invalid: () => undefined };
const open: RemoteRanks[] = [];
afterEach(() => {
  for (const r of open.splice(0)) r.close('test over');
});

/** A core listening on loopback; `open`: the run has begun (its id is known, so workers are challenged). */
async function core(world: number, backend: 'cpu' | 'nccl' = 'cpu', joinTimeoutMs = 20_000, o: { open?: boolean } = {}) {
  const lines: string[] = [];
  const ranks = new RemoteRanks({ host: '127.0.0.1', port: 0, token: TOKEN, world, backend, joinTimeoutMs, log: (l) => lines.push(l) });
  open.push(ranks);
  const { port } = await ranks.listen();
  const joined = o.open === false ? null : ranks.open(handlers, { runId: 'run-1' });
  joined?.catch(() => undefined);
  return { ranks, port, lines, joined };
}

/**
 * A worker as `clab worker` runs it (its rank process is never forked: these end at the
 * handshake), not awaited; `stop` is what a signal would do.
 */
function startWorker(port: number, o: { rank: number; world: number; token?: string; host?: string; connectTimeoutMs?: number }) {
  const lines: string[] = [];
  let stop: (why: string) => void = () => undefined;
  const code = runRemoteWorker({
    host: '127.0.0.1',
    port,
    token: o.token ?? TOKEN,
    entry: '/nonexistent/worker.cjs',
    connectTimeoutMs: o.connectTimeoutMs ?? 5000,
    place: { rank: o.rank, world: o.world, localRank: 0, device: 0, source: 'test' },
    identity: { id: o.host ?? 'host-a', name: o.host ?? 'host-a', bootId: 'boot' },
    log: (l) => lines.push(l),
    onStop: (s) => (stop = s),
  });
  return { code, lines, stop: (why: string) => stop(why) };
}

async function worker(port: number, o: { rank: number; world: number; token?: string; host?: string }) {
  const w = startWorker(port, o);
  return { code: await w.code, lines: w.lines };
}

const settle = () => new Promise((r) => setTimeout(r, 50));

/** Resolves once the core has said that `rank` joined; looked at every 10 ms, for at most 5 s. */
async function joinedSaid(lines: string[], rank: number): Promise<void> {
  const said = new RegExp(`^rank ${rank} joined from host `);
  for (let i = 0; i < 500 && !lines.some((l) => said.test(l)); i++) await new Promise((r) => setTimeout(r, 10));
  expect(lines.filter((l) => said.test(l))).toHaveLength(1);
}

describe('the handshake refuses, with a line on both sides', () => {
  it('a worker whose token is wrong: the core fails its proof, nothing is run; the token never crosses the wire', async () => {
    const c = await core(2);
    const w = await worker(c.port, { rank: 0, world: 2, token: '0123456789abcdef'.repeat(4) });
    await settle();
    expect(w.code).toBe(2);
    expect(w.lines.join('\n')).toContain(
      'the core at 127.0.0.1:' +
        c.port +
        " did not prove it holds the run's token (a different token on each side, or not clab's core at that address); nothing was run",
    );
    // Before its proof, nothing the peer claimed (rank, host) is said: only its address.
    expect(c.lines.join('\n')).toMatch(
      /a connection from 127\.0\.0\.1:\d+ went during its handshake: it refused the core's proof \(a different token on each side, or not a clab worker\)/,
    );
    expect(c.lines.join('\n')).not.toContain('host-a');
    expect(c.ranks.joinedRanks()).toEqual([]);
  });

  it('a rank out of range, and a worker started for another world', async () => {
    const c = await core(4);
    const other = await worker(c.port, { rank: 4, world: 5 });
    await settle();
    expect(other.lines.join('\n')).toContain('the worker was started for a world of 5; this run has 4 ranks');
    expect(c.lines.join('\n')).toContain('the worker was started for a world of 5; this run has 4 ranks');
  });

  it('a fifth worker for a four-rank world: its rank is taken', async () => {
    const c = await core(4);
    const joined = c.joined!;
    const workers = [0, 1, 2, 3].map((rank) => worker(c.port, { rank, world: 4 }));
    const set = await joined;
    expect(set.links).toHaveLength(4);
    expect(set.hosts?.map((h) => h.ranks)).toEqual([[0, 1, 2, 3]]);
    const fifth = await worker(c.port, { rank: 2, world: 4 });
    expect(fifth.code).toBe(2);
    expect(fifth.lines.join('\n')).toMatch(
      /refused by the core .*: rank 2 is taken \(by pid \d+ on host host-a\): the run has all its 4 ranks/,
    );
    expect(c.lines.join('\n')).toMatch(/refused rank 2 \(host host-a, 127\.0\.0\.1:\d+\): rank 2 is taken/);
    for (const l of set.links) l.kill();
    await Promise.all(workers);
  });

  it('a taken rank before the world is complete names who holds it', async () => {
    const c = await core(2);
    const first = worker(c.port, { rank: 0, world: 2 });
    await joinedSaid(c.lines, 0);
    const second = await worker(c.port, { rank: 0, world: 2 });
    expect(second.lines.join('\n')).toMatch(/rank 0 is taken \(by pid \d+ on host host-a\)/);
    c.ranks.close('test over');
    await first;
  });

  it('a cpu worker from a second host, with the reason', async () => {
    const c = await core(2, 'cpu');
    const first = worker(c.port, { rank: 0, world: 2, host: 'host-a' });
    await joinedSaid(c.lines, 0);
    const second = await worker(c.port, { rank: 1, world: 2, host: 'host-b' });
    const said =
      'cpu ranks share memory, so they must all run on one host: rank 0 is on host host-a (id host-a), rank 1 on host host-b (id host-b)';
    expect(second.lines.join('\n')).toContain(said);
    expect(c.lines.join('\n')).toContain(said);
    c.ranks.close('test over');
    await first;
  });

  it('lets an nccl worker from a second host in', async () => {
    const c = await core(2, 'nccl');
    const joined = c.joined!;
    const workers = [worker(c.port, { rank: 0, world: 2, host: 'host-a' }), worker(c.port, { rank: 1, world: 2, host: 'host-b' })];
    const set = await joined;
    expect(set.hosts?.map((h) => [h.name, h.ranks])).toEqual([
      ['host-a', [0]],
      ['host-b', [1]],
    ]);
    for (const h of set.hosts!) expect(Math.abs(h.clock.offsetNs)).toBeLessThanOrEqual(h.clock.errorNs + 1e6);
    for (const l of set.links) l.kill();
    await Promise.all(workers);
  });

  /** A raw client: sends `frames`, returns what the core answered before closing. */
  async function raw(port: number, frames: Buffer[]): Promise<unknown[]> {
    return new Promise((resolve) => {
      const s = connect({ host: '127.0.0.1', port });
      const reader = new FrameReader(1 << 20);
      const got: unknown[] = [];
      s.on('connect', () => {
        for (const f of frames) s.write(f);
      });
      s.on('data', (d) => got.push(...reader.push(d).map((b) => parseJson(splitBody(b).text))));
      s.on('close', () => resolve(got));
      s.on('error', () => undefined);
    });
  }

  const hello = (protocol: number, link = LINK_VERSION) =>
    encodeFrame({
      type: 'hello',
      link,
      protocol,
      ...(link >= 2 ? { nonce: 'ab'.repeat(32) } : {}),
      rank: 0,
      world: 2,
      localRank: 0,
      device: 0,
      host: { id: 'x', name: 'x', bootId: 'b' },
      pid: 1,
    });

  it('a worker of another protocol version', async () => {
    const c = await core(2);
    const got = await raw(c.port, [hello(PROTOCOL_VERSION + 1)]);
    expect(got).toEqual([{ type: 'refused', reason: expect.stringContaining('protocol version mismatch') }]);
    expect(c.lines.join('\n')).toContain('protocol version mismatch');
  });

  it('a worker of the link before sealed frames (1) gets one line naming both versions', async () => {
    const c = await core(2);
    const got = await raw(c.port, [hello(PROTOCOL_VERSION, 1)]);
    const line = `protocol version mismatch: the worker speaks link 1 / rank protocol ${PROTOCOL_VERSION}, the core link ${LINK_VERSION} / rank protocol ${PROTOCOL_VERSION}; use the same clab on both`;
    expect(got).toEqual([{ type: 'refused', reason: line }]);
    expect(c.lines.join('\n')).toContain(line);
  });

  it("a message over the handshake's bound, from its length alone", async () => {
    const c = await core(2);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(1 << 30, 0);
    const got = await raw(c.port, [header]);
    expect(got).toEqual([{ type: 'refused', reason: 'a message of 1073741824 bytes is over the bound of 16384 bytes' }]);
    expect(c.lines.join('\n')).toContain('over the bound of 16384 bytes');
  });

  it('ends the wait for the world with who joined and who did not', async () => {
    const c = await core(3, 'cpu', 1500);
    const joined = c.joined!;
    const w = worker(c.port, { rank: 1, world: 3 });
    await expect(joined).rejects.toThrow('2 of 3 ranks did not join within 2 s: joined 1 (host host-a); missing 0, 2');
    const { code, lines } = await w;
    expect(code).toBe(2);
    expect(lines.join('\n')).toContain('the run did not start: 2 of 3 ranks did not join');
  });
});

describe('a worker that joined or is joining', () => {
  it('stopped before the run starts (a signal) has its reason in the core log', async () => {
    const c = await core(2);
    const w = startWorker(c.port, { rank: 0, world: 2 });
    for (let i = 0; i < 100 && c.ranks.joinedRanks().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(c.ranks.joinedRanks()).toEqual([0]);
    w.stop('got SIGTERM');
    expect(await w.code).toBe(3);
    for (let i = 0; i < 100 && c.ranks.joinedRanks().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(c.lines).toContain(
      "rank 0 (host host-a) left before the run started: its worker said: rank 0's worker on host host-a got SIGTERM",
    );
  });

  it('tries again, with backoff, when the connection closes before the welcome, and joins', async () => {
    const c = await core(1);
    // Something at the address that closes the first two connections at once, then passes the rest to the core.
    let seen = 0;
    const { createServer, connect: dial } = await import('node:net');
    const front = createServer((s) => {
      s.on('error', () => undefined);
      if (++seen <= 2) return s.destroy();
      const back = dial({ host: '127.0.0.1', port: c.port });
      back.on('error', () => s.destroy());
      s.pipe(back).pipe(s);
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    const w = worker((front.address() as { port: number }).port, { rank: 0, world: 1 });
    const set = await c.joined!;
    expect(seen).toBe(3);
    set.links[0].kill();
    const { lines } = await w;
    front.close();
    // The same cause twice: said once.
    expect(lines.filter((l) => l.includes('closed the connection before the welcome'))).toHaveLength(1);
    expect(lines.join('\n')).toContain('trying again until the join deadline');
  });
});

describe('a worker waiting for its core', () => {
  it('ends at once when stopped, not at its connect deadline', async () => {
    const { createServer } = await import('node:net');
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as { port: number }).port;
    closed.close();
    const w = startWorker(port, { rank: 0, world: 1, connectTimeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 600));
    w.stop('got SIGTERM');
    // Within the test's own timeout (5 s), far before the 60 s deadline.
    expect(await w.code).toBe(2);
    expect(w.lines).toEqual(['clab worker: rank 0: got SIGTERM; ending']);
  });
});
