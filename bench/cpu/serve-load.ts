// `clab serve` under many pages (bench, not a test): CLIENTS WebSocket clients stay connected
// while RUNS cpu runs, each started by one of them, go and end; a probe page meanwhile asks the
// server something small every PROBE_MS, over the socket (runStatus) and over HTTP (the page), and
// the figures are how long those requests took: p50, p95 and the worst, per load, side by side
// with the same runs and only the RUNS pages that started them connected (the A side: the runs'
// own cost on this machine). Also: what each page received, and the server's peak memory.
//
//   npx tsx bench/cpu/serve-load.ts     CLIENTS=200 RUNS=6 SCENARIO=bench/cpu/serve-load.scenario.json
//   CLAB="/elsewhere/bin/clab.cjs bin/clab.cjs" npx tsx bench/cpu/serve-load.ts   two builds, side by side
//
// Three processes: the server (`node bin/clab.cjs serve`: the bundled CLI, `npm run build:cli`
// after a change), the load clients (one event loop holding every connection, reading each frame
// as a browser would: JSON.parse), and this one, the probe.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { API_VERSION } from '../../src/shared/run/api/api';

const CLIENTS = Number(process.env.CLIENTS ?? 200);
const RUNS = Number(process.env.RUNS ?? 6);
const PROBE_MS = Number(process.env.PROBE_MS ?? 50);
const SCENARIO = process.env.SCENARIO ?? 'bench/cpu/serve-load.scenario.json';
const RANKS = Number(process.env.RANKS ?? 2);
/** The `clab` builds measured, each under both loads: a copy of an older build's bin/ and dist/ gives a before. */
const BUILDS = (process.env.CLAB ?? 'bin/clab.cjs').split(/\s+/).filter(Boolean);

interface Address {
  port: number;
  token: string;
}

const call = (id: number, method: string, params: unknown) =>
  JSON.stringify({ type: 'call', v: API_VERSION, id, call: { method, params } });

function openSocket({ port, token }: Address): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api?token=${token}`, { origin: `http://127.0.0.1:${port}` });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** Child: `clients` connections; on 'start' the first `runs` of them start a run each; says 'ended' with what arrived. */
async function clientsProcess(address: Address, clients: number, runs: number): Promise<void> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < clients; i++) sockets.push(await openSocket(address));
  const received = sockets.map(() => ({ bytes: 0 }));
  const ends = new Set<string>();
  let starters = new Map<WebSocket, string>();
  let done: () => void = () => undefined;
  const allEnded = new Promise<void>((resolve) => (done = resolve));
  sockets.forEach((ws, i) =>
    ws.on('message', (data: Buffer) => {
      received[i].bytes += data.length;
      const frame = JSON.parse(data.toString()) as { type: string; value?: { runId?: string }; event?: { type: string; runId?: string } };
      if (frame.type === 'result' && frame.value?.runId) starters.set(ws, frame.value.runId);
      if (frame.event?.type === 'run-end' && starters.get(ws) === frame.event.runId) {
        ends.add(frame.event.runId);
        if (ends.size === runs) done();
      }
    }),
  );
  process.send!('ready');
  process.once('message', async () => {
    const text = readFileSync(SCENARIO, 'utf8');
    starters = new Map();
    for (const ws of sockets.slice(0, runs))
      ws.send(call(1, 'startRun', { text, file: SCENARIO, backend: 'cpu', ranks: RANKS, stepMode: false }));
    await allEnded;
    process.send!({ bytes: received.reduce((sum, r) => sum + r.bytes, 0) });
    for (const ws of sockets) ws.terminate();
    process.exit(0);
  });
}

function child(args: string[]): ChildProcess {
  return fork(fileURLToPath(import.meta.url), args, { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

const nextMessage = <T>(proc: ChildProcess) => new Promise<T>((resolve) => proc.once('message', (m) => resolve(m as T)));

function getPage({ port, token }: Address): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: `/?token=${token}` }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end();
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN;
}

interface Figures {
  clients: number;
  socket: number[];
  http: number[];
  seconds: number;
  mibPerClient: number;
  serverPeakMib: number;
}

/** The process's peak resident memory (Linux). */
function peakMib(pid: number): number {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return hwm ? Number(hwm[1]) / 1024 : NaN;
}

/** One load: a fresh server of `clab`, `clients` connections, RUNS runs; the probe's latencies while they go. */
async function measure(clab: string, clients: number): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), 'clab-serve-load-'));
  // CLAB_HOME there: nothing of this bench goes to ~/.clab.
  const server = spawn(process.execPath, [clab, 'serve', '--port', '0', '--runs', dir], {
    env: { ...process.env, CLAB_HOME: dir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: server.stdout }).once('line', resolve);
      server.once('exit', (code) => reject(new Error(`${clab} serve exited (${code}) before it served`)));
    });
    const url = new URL(line.slice(line.indexOf('http')));
    const address = { port: Number(url.port), token: url.searchParams.get('token')! };
    const load = child(['clients', JSON.stringify(address), String(clients)]);
    await nextMessage(load);
    const probe = await openSocket(address);
    const socket: number[] = [];
    const http: number[] = [];
    const asked = new Map<number, number>();
    probe.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as { type: string; id?: number };
      const at = frame.type === 'result' ? asked.get(frame.id!) : undefined;
      if (at !== undefined) socket.push(performance.now() - at);
    });
    let id = 0;
    const started = performance.now();
    const ended = nextMessage<{ bytes: number }>(load);
    load.send('start');
    const pages: Promise<unknown>[] = [];
    const timer = setInterval(() => {
      asked.set(++id, performance.now());
      probe.send(call(id, 'runStatus', { runId: 'none' }));
      const at = performance.now();
      pages.push(getPage(address).then(() => http.push(performance.now() - at)));
    }, PROBE_MS);
    const { bytes } = await ended;
    const seconds = (performance.now() - started) / 1000;
    clearInterval(timer);
    // Requests still unanswered when the runs have ended count too: they are the slowest.
    await Promise.all(pages);
    while (socket.length < id) await new Promise((resolve) => setTimeout(resolve, 20));
    probe.terminate();
    const serverPeakMib = peakMib(server.pid!);
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    return {
      clients,
      socket: socket.sort((a, b) => a - b),
      http: http.sort((a, b) => a - b),
      seconds,
      mibPerClient: bytes / clients / 2 ** 20,
      serverPeakMib,
    };
  } finally {
    if (server.exitCode === null) server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

function row(f: Figures): string {
  const ms = (v: number) => v.toFixed(0).padStart(7);
  return [
    String(f.clients).padStart(7),
    ...[f.socket, f.http].flatMap((l) => [ms(percentile(l, 50)), ms(percentile(l, 95)), ms(l[l.length - 1])]),
    String(f.socket.length).padStart(7),
    f.seconds.toFixed(1).padStart(8),
    f.mibPerClient.toFixed(1).padStart(10),
    f.serverPeakMib.toFixed(0).padStart(10),
  ].join('  ');
}

async function main(): Promise<void> {
  console.log(
    `# ${RUNS} runs of ${SCENARIO} on ${RANKS} cpu ranks; probe every ${PROBE_MS} ms; node ${process.version}, ${cpus().length} cores`,
  );
  console.log('(ms; probes: requests of each kind; load s: first start to last run-end; MiB/client: received; server MiB: peak RSS)');
  for (const clab of BUILDS) {
    console.log(`\n${clab}`);
    console.log('clients   ws p50   ws p95   ws max  http p50 http p95 http max   probes    load s  MiB/client  server MiB');
    const a = await measure(clab, RUNS);
    console.log(row(a));
    const b = await measure(clab, CLIENTS);
    console.log(row(b));
    const ratio = (l: 'socket' | 'http') => (percentile(b[l], 95) / percentile(a[l], 95)).toFixed(1);
    console.log(
      `p95 at ${CLIENTS} clients / at ${RUNS}: ws ×${ratio('socket')}, http ×${ratio('http')} (target: p95 ≤ 1000 ms at ${CLIENTS})`,
    );
  }
}

if (process.argv[2] === 'clients') void clientsProcess(JSON.parse(process.argv[3]) as Address, Number(process.argv[4]), RUNS);
else void main();
