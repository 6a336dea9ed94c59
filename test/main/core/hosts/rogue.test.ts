// The link as an attacker meets it: a stand-in core that knows no token, frames captured from a
// real run and replayed, an on-path host that injects, changes or repeats a frame mid-run, and a
// stand-in worker. None of them may get a rank started, an environment variable set or a frame
// accepted. A rank started at all would write a marker file (its entry is a script that does).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RemoteRanks } from '../../../../src/main/core/hosts/listener';
import { runRemoteWorker } from '../../../../src/main/core/hosts/remote-worker';
import { encodeFrame, FrameReader } from '../../../../src/main/core/hosts/frames';
import { compilePlan } from '../../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../../src/shared/scenario/schema';
import { PROTOCOL_VERSION } from '../../../../src/shared/run/rank/protocol';
import { LINK_VERSION, OUTPUT_LINE_CHARS } from '../../../../src/shared/run/hosts/hosts';
import type { RankSet, WorkerHandlers } from '../../../../src/main/core/run/workers';
import { closeAll, frameOf, onPath, plainMessage, standIn } from './peers';
import { CLAB, endAll, start, waitFor } from './processes';

const TOKEN = '5b1e9d07c3a4f826'.repeat(4);
const dir = mkdtempSync(join(tmpdir(), 'clab-rogue-'));
/** The rank's entry: if a rank is ever started, it leaves this mark. */
const MARK = join(dir, 'rank-ran');
const ENTRY = join(dir, 'rank.cjs');
writeFileSync(ENTRY, `require('node:fs').writeFileSync(${JSON.stringify(MARK)}, 'ran');\n`);
/** What NODE_OPTIONS would load, if a plan could set it. */
const INJECTED = join(dir, 'injected.cjs');
const INJECTED_MARK = join(dir, 'injected-ran');
writeFileSync(INJECTED, `require('node:fs').writeFileSync(${JSON.stringify(INJECTED_MARK)}, 'ran');\n`);

const handlers: WorkerHandlers = { message: () => undefined, output: () => undefined, exit: () => undefined, invalid: () => undefined };
const cores: RemoteRanks[] = [];
afterEach(() => {
  for (const c of cores.splice(0)) c.close('test over');
  closeAll();
  rmSync(MARK, { force: true });
  rmSync(INJECTED_MARK, { force: true });
});
afterAll(() => {
  endAll();
  rmSync(dir, { recursive: true, force: true });
});

const plan = compilePlan(scenarioSchema.parse({ version: 1, name: 'p', world: { ranks: 1 }, steps: [{ op: 'all_reduce', count: 4 }] }));
/** A start as a captured one looks, with the attacker's environment in its plan. */
const evilStart = (runId: string) => ({
  type: 'start' as const,
  v: PROTOCOL_VERSION as typeof PROTOCOL_VERSION,
  runId,
  rank: 0,
  backend: 'cpu' as const,
  plan: { ...plan, env: { NODE_OPTIONS: `--require ${INJECTED}` } },
});

async function core(o: { maxUnproven?: number; maxUnprovenPerAddress?: number; world?: number; handlers?: WorkerHandlers } = {}) {
  const lines: string[] = [];
  const ranks = new RemoteRanks({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    world: o.world ?? 1,
    backend: 'cpu',
    joinTimeoutMs: 20_000,
    log: (l) => lines.push(l),
    ...o,
  });
  cores.push(ranks);
  const { port } = await ranks.listen();
  const joined: Promise<RankSet> = ranks.open(o.handlers ?? handlers, { runId: 'run-1' });
  joined.catch(() => undefined);
  return { ranks, port, lines, joined };
}

function worker(port: number, o: { token?: string; connectTimeoutMs?: number; entry?: string } = {}) {
  const lines: string[] = [];
  const code = runRemoteWorker({
    host: '127.0.0.1',
    port,
    token: o.token ?? TOKEN,
    entry: o.entry ?? ENTRY,
    connectTimeoutMs: o.connectTimeoutMs ?? 5000,
    place: { rank: 0, world: 1, localRank: 0, device: 0, source: 'test' },
    identity: { id: 'host-a', name: 'host-a', bootId: 'boot' },
    log: (l) => lines.push(l),
  });
  return { code, lines };
}

const nothingRan = () => {
  expect(existsSync(MARK)).toBe(false);
  expect(existsSync(INJECTED_MARK)).toBe(false);
};

/** One real join through an on-path host that keeps every frame: what an attacker can capture. */
async function capture() {
  const c = await core();
  const path = await onPath(c.port);
  const w = worker(path.port);
  const set = await c.joined;
  set.links[0].kill();
  await w.code;
  return path.seen;
}

describe('a stand-in core that does not know the token', () => {
  it('sending welcome and a start with NODE_OPTIONS at once gets nothing run: the worker waits for a proof that never comes', async () => {
    let connections = 0;
    const port = await standIn((socket) => {
      connections++;
      socket.write(encodeFrame({ type: 'welcome', runId: 'r', backend: 'cpu' }));
      socket.write(encodeFrame({ type: 'm', m: evilStart('r') }));
    });
    const w = worker(port, { connectTimeoutMs: 1500 });
    expect(await w.code).toBe(2);
    expect(w.lines[0]).toBe(
      'clab worker: rank 0: the core at 127.0.0.1:' +
        port +
        " closed the connection before the welcome: the peer sent welcome before proving it holds the run's token; trying again until the join deadline",
    );
    expect(w.lines.at(-1)).toMatch(/did not join the core at .* within 2 s/);
    expect(connections).toBeGreaterThan(1);
    nothingRan();
  });

  it("replaying a real core's captured frames fails the core's proof: it covered another worker's nonce", async () => {
    const seen = await capture();
    expect(seen['to-worker'].length).toBeGreaterThan(5);
    const port = await standIn((socket) => {
      for (const body of seen['to-worker']) socket.write(frameOf(body));
    });
    const w = worker(port);
    expect(await w.code).toBe(2);
    expect(w.lines.join('\n')).toContain("did not prove it holds the run's token");
    nothingRan();
  });

  it('answering with a challenge whose proof was made without the token gets no proof back', async () => {
    const got: unknown[] = [];
    let closed!: Promise<void>;
    const port = await standIn((socket, bodies) => {
      closed = new Promise((r) => socket.on('close', () => r()));
      bodies((b) => {
        const m = plainMessage(b);
        got.push(m);
        if (m?.type === 'hello') socket.write(encodeFrame({ type: 'challenge', nonce: 'cd'.repeat(32), runId: 'r', mac: 'ef'.repeat(32) }));
      });
    });
    const w = worker(port);
    expect(await w.code).toBe(2);
    await closed;
    expect(got.map((m) => (m as { type: string }).type)).toEqual(['hello', 'refused']);
    nothingRan();
  });
});

describe('an on-path host', () => {
  /**
   * A real core and worker with `change` between them; the core sends the worker `start` once it
   * has joined. Frames to the worker: 0 the challenge, 1–8 pings, 9 the welcome, 10 on the run's.
   */
  async function throughPath(change: Parameters<typeof onPath>[1]) {
    const c = await core();
    const path = await onPath(c.port, change);
    const w = worker(path.port);
    const set = await c.joined.catch(() => null);
    set?.links[0].send(evilStart('run-1'));
    return { c, w, code: await w.code };
  }

  it('that injects a plain start after the handshake gets the link ended, not obeyed', async () => {
    const { w, code } = await throughPath((way, body, index) =>
      way === 'to-worker' && index === 10 ? [encodeFrame({ type: 'm', m: evilStart('run-1') }).subarray(4), body] : [body],
    );
    expect(code).not.toBe(0);
    expect(w.lines.join('\n')).toContain('an unsealed message after the handshake');
    nothingRan();
  });

  it('that changes one byte of a sealed frame, or repeats one, gets the link ended', async () => {
    // The start with one byte changed; the welcome sent twice (its copy comes where the start's seal is due).
    const changes: [number, (b: Buffer) => Buffer[]][] = [
      [10, (b) => [Buffer.concat([b.subarray(0, -1), Buffer.from([b[b.length - 1] ^ 1])])]],
      [9, (b) => [b, b]],
    ];
    for (const [at, change] of changes) {
      const { w, code } = await throughPath((way, body, index) => (way === 'to-worker' && index === at ? change(body) : [body]));
      expect(code).not.toBe(0);
      expect(w.lines.join('\n')).toMatch(/message \d+ fails its seal \(changed, injected, replayed or out of order on the way\)/);
      nothingRan();
      closeAll();
    }
  });

  it("that changes a worker's sealed frame gets it refused by the core, which never lets the rank in", async () => {
    const c = await core();
    const path = await onPath(c.port, (way, body, index) =>
      way === 'to-core' && index === 4 ? [Buffer.concat([body.subarray(0, -1), Buffer.from('x')])] : [body],
    );
    const w = worker(path.port);
    expect(await w.code).toBe(2);
    expect(c.lines.join('\n')).toMatch(/refused rank 0 \(host host-a, 127\.0\.0\.1:\d+\): message \d+ fails its seal/);
    expect(c.ranks.joinedRanks()).toEqual([]);
  });
});

describe('a core that holds the token', () => {
  it("still cannot set NODE_OPTIONS or a plug-in in a rank's environment: the worker refuses the start, naming the key", async () => {
    const envs: Record<string, string>[] = [
      { NODE_OPTIONS: `--require ${INJECTED}` },
      { NCCL_NET_PLUGIN: INJECTED },
      { LD_PRELOAD: INJECTED },
    ];
    for (const env of envs) {
      const c = await core();
      const w = worker(c.port);
      const set = await c.joined;
      set.links[0].send({ ...evilStart('run-1'), plan: { ...plan, env } });
      expect(await w.code).toBe(2);
      const key = Object.keys(env)[0];
      expect(w.lines.join('\n')).toContain(`the plan may not set "${key}" in a rank's environment`);
      expect(w.lines.join('\n')).toContain('the rank is not started');
      nothingRan();
      c.ranks.close('next');
    }
  });
});

describe("a rank's output", () => {
  it('a line longer than the link takes is cut by the worker, not the end of its link', async () => {
    const entry = join(dir, 'long-line.cjs');
    writeFileSync(entry, `process.stdout.write('x'.repeat(${OUTPUT_LINE_CHARS + 5000}) + '\\n');\n`);
    const out: string[] = [];
    const exits: (number | null)[] = [];
    const c = await core({ handlers: { ...handlers, output: (_, line) => out.push(line), exit: (_, code) => exits.push(code) } });
    const w = worker(c.port, { entry });
    const set = await c.joined;
    set.links[0].send({ ...evilStart('run-1'), plan });
    expect(await w.code).toBe(0);
    // The worker's last frame (how the rank ended) may reach the core just after the worker is done.
    for (let i = 0; i < 100 && exits.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(out.map((l) => l.length)).toEqual([OUTPUT_LINE_CHARS]);
    expect(exits).toEqual([0]);
  });
});

describe('a stand-in worker', () => {
  /** A raw worker: sends `first`, then answers the challenge with `proof(challenge)`; gives back what the core said. */
  async function rawWorker(port: number, first: Buffer[], proof?: (challenge: Record<string, unknown>) => Buffer[]) {
    return new Promise<unknown[]>((resolve) => {
      const s = connect({ host: '127.0.0.1', port });
      const reader = new FrameReader(1 << 20);
      const got: unknown[] = [];
      s.on('connect', () => first.forEach((f) => s.write(f)));
      s.on('data', (d) => {
        for (const b of reader.push(d)) {
          const m = plainMessage(b);
          got.push(m ?? 'sealed');
          if (m?.type === 'challenge' && proof) proof(m).forEach((f) => s.write(f));
        }
      });
      s.on('close', () => resolve(got));
      s.on('error', () => undefined);
    });
  }
  const hello = {
    type: 'hello',
    link: LINK_VERSION,
    protocol: PROTOCOL_VERSION,
    nonce: '12'.repeat(32),
    rank: 0,
    world: 1,
    localRank: 0,
    device: 0,
    host: { id: 'evil', name: 'evil', bootId: 'b' },
    pid: 1,
  };

  it('that does not know the token is refused, and nothing it claimed is said', async () => {
    const c = await core();
    const got = await rawWorker(c.port, [encodeFrame(hello)], () => [encodeFrame({ type: 'proof', mac: '34'.repeat(32) })]);
    expect(got).toEqual([
      { type: 'challenge', nonce: expect.stringMatching(/^[0-9a-f]{64}$/), runId: 'run-1', mac: expect.stringMatching(/^[0-9a-f]{64}$/) },
      { type: 'refused', reason: "wrong token: the worker's proof does not match the run's token" },
    ]);
    expect(c.lines.join('\n')).toMatch(/^refused a connection from 127\.0\.0\.1:\d+: wrong token/m);
    expect(c.lines.join('\n')).not.toContain('evil');
    expect(c.ranks.joinedRanks()).toEqual([]);
  });

  it("that replays a real worker's captured frames is refused: its proof covered another challenge", async () => {
    const seen = await capture();
    const c = await core();
    const got = await rawWorker(c.port, seen['to-core'].map(frameOf));
    expect(got.at(-1)).toEqual({ type: 'refused', reason: "wrong token: the worker's proof does not match the run's token" });
    expect(c.ranks.joinedRanks()).toEqual([]);
  });

  it('that skips the proof and sends sealed-looking frames is refused', async () => {
    const c = await core();
    const sealed = Buffer.concat([Buffer.from([1]), Buffer.alloc(32), Buffer.from('{"type":"proof","mac":"00"}')]);
    const got = await rawWorker(c.port, [encodeFrame(hello)], () => [frameOf(sealed)]);
    expect(got.at(-1)).toEqual({ type: 'refused', reason: 'a sealed message before the handshake ended' });
    expect(c.ranks.joinedRanks()).toEqual([]);
  });
});

describe('under pressure', () => {
  it('keeps few unproven connections, drops the rest unread, and says only the first ten and a count', async () => {
    const c = await core({ maxUnproven: 3, maxUnprovenPerAddress: 2 });
    const silent = await Promise.all(
      Array.from(
        { length: 16 },
        () =>
          new Promise<ReturnType<typeof connect>>((r) => {
            const s = connect({ host: '127.0.0.1', port: c.port }, () => r(s));
            s.on('error', () => undefined);
          }),
      ),
    );
    await new Promise((r) => setTimeout(r, 200));
    const dropped = c.lines.filter((l) => l.startsWith('dropped a connection from 127.0.0.1'));
    expect(dropped).toHaveLength(10);
    expect(dropped[0]).toMatch(/: 2 from 127\.0\.0\.1 are waiting to prove the token already$/);
    c.ranks.close('test over');
    expect(c.lines.at(-1)).toMatch(/^and \d+ more refused or dropped connections \(not shown one by one\)$/);
    for (const s of silent) s.destroy();
  });

  it('a core short of file descriptors (ulimit -n) says so once, however many connections come', async () => {
    const scenario = join(dir, 'barrier.scenario.json');
    writeFileSync(scenario, JSON.stringify({ version: 1, name: 'b', world: { ranks: 60 }, steps: [{ op: 'barrier' }] }));
    const c = start('bash', [
      '-c',
      // The 140 connections below come within milliseconds of the wait's first line: 2 s of waiting sees them all.
      `ulimit -n 60; exec node ${CLAB} run ${scenario} --backend cpu --listen 127.0.0.1:0 --join-timeout 2 --out ${join(dir, 'r.json')}`,
    ]);
    await waitFor(c, /waiting for 60 ranks at 127\.0\.0\.1:\d+/, 20_000);
    const port = Number(/waiting for 60 ranks at 127\.0\.0\.1:(\d+)/.exec(c.err)![1]);
    const sockets = Array.from({ length: 140 }, () => connect({ host: '127.0.0.1', port }).on('error', () => undefined));
    await c.exited;
    for (const s of sockets) s.destroy();
    // Said when it began to listen (60 ranks, fewer descriptors free), and not again as connections come.
    expect(c.err).toMatch(/60 ranks need a file descriptor each here, and only \d+ are free: raise `ulimit -n` before the run/);
    expect(c.err.match(/file descriptor|EMFILE/g)).toHaveLength(1);
  });

  it('says once that accept failed (EMFILE), and goes on listening', async () => {
    const c = await core();
    const emfile = Object.assign(new Error('accept EMFILE'), { code: 'EMFILE', syscall: 'accept' });
    c.ranks.acceptFailed(emfile);
    c.ranks.acceptFailed(emfile);
    expect(c.lines.filter((l) => l.includes('EMFILE'))).toEqual([
      'cannot accept a connection, or soon cannot: EMFILE (out of file descriptors: raise `ulimit -n`, or fewer connections); still listening for the ranks',
    ]);
    const w = worker(c.port);
    const set = await c.joined;
    expect(set.links).toHaveLength(1);
    set.links[0].kill();
    await w.code;
  });
});
