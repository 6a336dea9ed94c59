// `clab serve`'s server keeps no descriptor for a client that went away, and runs out of none
// for good: each case watches a server in a process of its own (server-process.ts).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { Agent, request, type ClientRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../setup/temp-dirs';

const BIG_ASSET_BYTES = 32 * 1024 * 1024;
const rendererDir = tempDir('renderer-fd');
mkdirSync(join(rendererDir, 'assets'));
writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><html><body><div id="root"></div></body></html>');
// Larger than the socket buffers on both sides, so a download is cut off mid-way.
writeFileSync(join(rendererDir, 'assets', 'big.js'), Buffer.alloc(BIG_ASSET_BYTES, 0x20));

interface Served {
  child: ChildProcess;
  port: number;
  cookie: string;
}
let served: Served | null = null;
afterEach(() => {
  served?.child.kill('SIGTERM');
  served = null;
});

/**
 * Starts the server in its own process and, when `maxFiles` is given, limits it to that many
 * descriptors once it is up (prlimit): loading its sources from TypeScript (tsx) opens files in
 * parallel, more than a served process holds, which is not what the test is about.
 */
async function startServer(maxFiles?: number): Promise<Served> {
  const command = `exec "${process.execPath}" --import tsx test/main/serve/server-process.ts "${rendererDir}" "${tempDir('serve-fd-runs')}"`;
  const child = spawn('sh', ['-c', command], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  const { port, token } = JSON.parse(line) as { port: number; token: string };
  if (maxFiles) execFileSync('prlimit', [`--pid=${child.pid}`, `--nofile=${maxFiles}:${maxFiles}`]);
  served = { child, port, cookie: `clab_token_${port}=${token}` };
  return served;
}

const openDescriptors = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** How long a request may go unanswered: a connection the server never took fails instead of hanging the test. */
const ANSWER_MS = 10_000;
/** A download not answered within this long is taken as refused (no descriptor left to accept it). */
const REFUSED_AFTER_MS = 3_000;

/** A request on a connection of its own (no keep-alive pool holding sockets open). */
function download(server: Served, path: string): { req: ClientRequest; response: Promise<IncomingMessage> } {
  const req = request({
    host: '127.0.0.1',
    port: server.port,
    path,
    agent: false,
    headers: { cookie: server.cookie, connection: 'close' },
  });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    const timer = setTimeout(() => req.destroy(new Error(`no answer to GET ${path} within ${ANSWER_MS} ms`)), ANSWER_MS);
    req.on('response', (res) => {
      clearTimeout(timer);
      resolve(res);
    });
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
  req.end();
  return { req, response };
}

async function fullGet(server: Served, path: string): Promise<{ status: number; bytes: number }> {
  const res = await download(server, path).response;
  let bytes = 0;
  for await (const chunk of res) bytes += (chunk as Buffer).length;
  return { status: res.statusCode!, bytes };
}

async function settles(read: () => number, target: number, withinMs: number): Promise<number> {
  const until = Date.now() + withinMs;
  let now = read();
  while (now > target && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    now = read();
  }
  return now;
}

describe('static files and descriptors', () => {
  it('closes the file of every download the client abandons: 50 aborted mid-way leave no descriptor open', async () => {
    const server = await startServer();
    const pid = server.child.pid!;
    expect(await fullGet(server, '/assets/big.js')).toEqual({ status: 200, bytes: BIG_ASSET_BYTES });
    const baseline = await settles(() => openDescriptors(pid), 0, 500);
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        const { req, response } = download(server, '/assets/big.js');
        const res = await response;
        expect(res.statusCode).toBe(200);
        await new Promise((resolve) => res.once('data', resolve));
        req.destroy();
      }),
    );
    expect(await settles(() => openDescriptors(pid), baseline, 2000)).toBeLessThanOrEqual(baseline);
    expect(await fullGet(server, '/')).toMatchObject({ status: 200 });
  });

  it('answers 503 when a file cannot be opened for want of descriptors, and serves again once some are free', async () => {
    const server = await startServer(64);
    const pid = server.child.pid!;
    // Unread downloads hold the server's socket and file open, until a connection is refused
    // (no descriptor left even to accept it; libuv closes it at once).
    const held: ClientRequest[] = [];
    // Bounded: 64 descriptors run out long before 200 downloads; a connection the server cannot
    // accept may also sit unanswered in the kernel's queue, which counts as refused after a while.
    for (let i = 0; i < 200; i++) {
      const { req, response } = download(server, '/assets/big.js');
      held.push(req);
      const unanswered = new Promise<number>((r) => setTimeout(() => r(0), REFUSED_AFTER_MS));
      const status = await Promise.race([
        response.then(
          (res) => {
            res.pause();
            return res.statusCode!;
          },
          () => 0,
        ),
        unanswered,
      ]);
      if (status !== 200) break;
    }
    expect(held.length).toBeGreaterThan(5);
    // Free one download (its socket and file), take one descriptor with a kept-alive
    // connection: the next download is accepted and its file cannot be opened.
    // libuv refuses a connection by closing a spare descriptor for a moment (to accept and close
    // it): read the count once that has settled, the highest of a few readings.
    let full = 0;
    for (let i = 0; i < 5; i++) {
      full = Math.max(full, openDescriptors(pid));
      await new Promise((r) => setTimeout(r, 50));
    }
    held.shift()!.destroy();
    expect(await settles(() => openDescriptors(pid), full - 2, 2000)).toBe(full - 2);
    const agent = new Agent({ keepAlive: true });
    const kept = await new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port: server.port, path: '/missing.js', agent, headers: { cookie: server.cookie } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      })
        .on('error', reject)
        .setTimeout(ANSWER_MS, function (this: ClientRequest) {
          this.destroy(new Error('no answer to the kept-alive request'));
        })
        .end();
    });
    expect(kept).toBe(404);
    const starved = await fullGet(server, '/assets/big.js');
    expect(starved.status).toBe(503);
    expect(server.child.exitCode).toBeNull();
    for (const req of held) req.destroy();
    agent.destroy();
    // The server closes the freed downloads' sockets and files as it learns of them; a connection
    // made before it has may still find no descriptor and be dropped: ask until it is served.
    let again: { status: number; bytes: number } | Error = new Error('not asked');
    for (let i = 0; i < 5; i++) {
      again = await fullGet(server, '/assets/big.js').catch((e: Error) => e);
      if (!(again instanceof Error) && again.status === 200) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(again).toEqual({ status: 200, bytes: BIG_ASSET_BYTES });
    expect(server.child.exitCode).toBeNull();
  });
});
