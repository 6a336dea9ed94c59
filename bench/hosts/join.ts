// Scale of the core's side of ranks from a launcher (bench, not a test): N light stand-in workers
// speaking the real link (frames, both token proofs, sealed frames, clock pings, environment, then
// the rank protocol)
// join one core, get a plan, and stream step-end events. Printed per N: join time, plan
// distribution time, event throughput and the core's memory.
//
//   npx tsx bench/hosts/join.ts [N ...]            (default 64 256 1024; bench/hosts/run.sh)
//
// The stand-ins live in a few processes (STANDIN_PROCS, default 8), each holding N/procs links in
// one event loop, so the figures are the core's: its listener, handshake, framing and relaying.
import { fork } from 'node:child_process';
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { RemoteRanks } from '../../src/main/core/hosts/listener';
import { FramedLink } from '../../src/main/core/hosts/link';
import { newNonce, proofHolds, proofMac } from '../../src/main/core/hosts/token';
import { sessionKeys } from '../../src/main/core/hosts/session';
import { collectEnvironment } from '../../src/main/core/machine/environment';
import { loadScenarioFile } from '../../src/main/core/library/scenario-file';
import { compileLoaded } from '../../src/shared/plan/text';
import {
  coreLinkSchema,
  LINK_FRAME_BYTES,
  LINK_VERSION,
  proofText,
  type CoreLinkMessage,
  type Hello,
  type WorkerLinkMessage,
} from '../../src/shared/run/hosts/hosts';
import { PROTOCOL_VERSION, type TimelineEvent } from '../../src/shared/run/rank/protocol';
import type { WorkerLink } from '../../src/main/core/run/workers';

const STEPS = 20;
const EVENTS_PER_STEP = 50;
const PROCS = Number(process.env.STANDIN_PROCS ?? 8);

interface Job {
  port: number;
  token: string;
  world: number;
  ranks: number[];
}

/** A stand-in worker process: `job.ranks` links, each a rank that runs nothing and reports STEPS steps. */
async function standIns(job: Job): Promise<void> {
  const environment = await collectEnvironment('cpu', null);
  const now = () => Number(process.hrtime.bigint());
  // Ready (loaded, environment read), then connect all at once when the core says go.
  await new Promise<void>((go) => {
    process.once('message', () => go());
    process.send!('ready');
  });
  await Promise.all(
    job.ranks.map(
      (rank) =>
        new Promise<void>((resolve) => {
          const socket = connect({ host: '127.0.0.1', port: job.port });
          const link = new FramedLink<CoreLinkMessage, WorkerLinkMessage>(socket, {
            schema: coreLinkSchema,
            peer: 'core',
            limit: LINK_FRAME_BYTES,
            silenceMs: 60_000,
          });
          const hello: Hello = {
            type: 'hello',
            link: LINK_VERSION,
            protocol: PROTOCOL_VERSION,
            nonce: newNonce(),
            rank,
            world: job.world,
            localRank: 0,
            device: 0,
            host: { id: 'bench', name: 'bench', bootId: 'b' },
            pid: process.pid,
          };
          link.listen(
            (m) => {
              if (m.type === 'challenge') {
                if (!proofHolds(job.token, proofText('core', hello, m.nonce, m.runId), m.mac))
                  throw new Error("the core's proof does not hold");
                link.send({ type: 'proof', mac: proofMac(job.token, proofText('worker', hello, m.nonce, m.runId)) });
                return link.seal(sessionKeys(job.token, hello.nonce!, m.nonce, 'worker'), true);
              }
              if (m.type === 'ping') return link.send({ type: 'pong', seq: m.seq, workerNs: now() });
              if (m.type === 'welcome') return link.send({ type: 'environment', environment });
              if (m.type !== 'm') return undefined;
              const v = PROTOCOL_VERSION;
              if (m.m.type === 'start') {
                link.send({ type: 'm', m: { type: 'log', v, rank, text: 'plan received', atNs: now() } });
                // The events a step of a sweep brings: one per iteration, on its stream.
                for (let step = 0; step < STEPS; step++) {
                  const t = now();
                  const events: TimelineEvent[] = Array.from({ length: EVENTS_PER_STEP }, (_, i) => ({
                    rank,
                    stream: 0,
                    step,
                    name: 'all_reduce',
                    phase: 'timed',
                    startNs: t + i * 1000,
                    endNs: t + i * 1000 + 900,
                    bytes: 1 << 20,
                  }));
                  link.send({ type: 'm', m: { type: 'step-begin', v, rank, step, atNs: t } });
                  link.send({
                    type: 'm',
                    m: {
                      type: 'step-end',
                      v,
                      rank,
                      result: { step, rank, verdict: 'pass', checked: 1, wrong: 0, mismatches: [], output: null, timesUs: [1], note: null },
                      events,
                    },
                  });
                }
                link.send({ type: 'm', m: { type: 'done', v, rank } });
              }
              if (m.m.type === 'leave') {
                link.end({ type: 'exit', code: 0, signal: null });
                resolve();
              }
              return undefined;
            },
            () => resolve(),
          );
          link.send(hello);
        }),
    ),
  );
  process.exit(0);
}

const mb = (n: number) => (n / 2 ** 20).toFixed(0);

async function measure(world: number) {
  const token = randomBytes(32).toString('hex');
  const ranks = new RemoteRanks({
    host: '127.0.0.1',
    port: 0,
    token,
    world,
    backend: 'cpu',
    joinTimeoutMs: 300_000,
    silenceMs: 60_000,
    log: () => undefined,
  });
  const { port } = await ranks.listen();
  const loaded = loadScenarioFile('scenarios/all-in-one.scenario.json');
  const plan = compileLoaded(loaded, { ranks: 4 });
  let planned = 0;
  let events = 0;
  let done = 0;
  let allPlanned!: () => void;
  let allDone!: () => void;
  const planGot = new Promise<void>((r) => {
    allPlanned = r;
  });
  const doneGot = new Promise<void>((r) => {
    allDone = r;
  });
  const links: WorkerLink[] = [];
  let exited = 0;
  const opened = ranks.open(
    {
      message: (_, m) => {
        if (m.type === 'log' && ++planned === world) allPlanned();
        if (m.type === 'step-end') events += m.events.length;
        if (m.type === 'done' && ++done === world) allDone();
      },
      output: () => undefined,
      invalid: (r, e) => {
        throw new Error(`rank ${r}: ${e.message}`);
      },
      exit: () => {
        exited++;
      },
    },
    { runId: 'bench' },
  );
  const per = Math.ceil(world / PROCS);
  const children = Array.from({ length: Math.min(PROCS, world) }, (_, p) => {
    const job: Job = { port, token, world, ranks: Array.from({ length: world }, (_, r) => r).filter((r) => Math.floor(r / per) === p) };
    return fork(fileURLToPath(import.meta.url), [JSON.stringify(job)], {
      execArgv: process.execArgv,
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    });
  });
  await Promise.all(children.map((c) => new Promise((r) => c.once('message', r))));
  const t0 = performance.now();
  for (const c of children) c.send('go');
  links.push(...(await opened).links);
  const joinMs = performance.now() - t0;
  global.gc?.();
  const rssJoined = process.memoryUsage().rss;
  const t1 = performance.now();
  for (const l of links) l.send({ type: 'start', v: PROTOCOL_VERSION, runId: 'bench', rank: l.rank, backend: 'cpu', plan });
  // The core's part: every start message framed and written.
  const planSendMs = performance.now() - t1;
  await planGot;
  const planMs = performance.now() - t1;
  await doneGot;
  // From the plan sent to every stand-in's last step in: the stand-ins send their steps at once.
  const eventsMs = performance.now() - t1;
  const rssPeak = process.memoryUsage().rss;
  for (const l of links) l.send({ type: 'leave', v: PROTOCOL_VERSION });
  await Promise.all(children.map((c) => new Promise((r) => c.on('exit', r))));
  ranks.close('bench over');
  return { world, joinMs, planSendMs, planMs, eventsMs, eventsPerS: events / (eventsMs / 1000), events, rssJoined, rssPeak, exited };
}

async function main() {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  const rows = [];
  for (const world of sizes.length ? sizes : [64, 256, 1024]) rows.push(await measure(world));
  const planBytes = JSON.stringify(compileLoaded(loadScenarioFile('scenarios/all-in-one.scenario.json'), { ranks: 4 })).length;
  console.log(
    `# ${STEPS} steps × ${EVENTS_PER_STEP} events per stand-in; plan: all-in-one (${(planBytes / 1024).toFixed(0)} KiB); stand-ins in ${PROCS} processes; node ${process.version}`,
  );
  const head = [
    'workers',
    'join ms',
    'join ms/worker',
    'plan sent ms',
    'plan in ms',
    'all steps ms',
    'events/s',
    'events',
    'core RSS joined MiB',
    'core RSS peak MiB',
  ];
  console.log(head.join('\t'));
  for (const r of rows) {
    console.log(
      [
        r.world,
        r.joinMs.toFixed(0),
        (r.joinMs / r.world).toFixed(2),
        r.planSendMs.toFixed(1),
        r.planMs.toFixed(0),
        r.eventsMs.toFixed(0),
        r.eventsPerS.toFixed(0),
        r.events,
        mb(r.rssJoined),
        mb(r.rssPeak),
      ].join('\t'),
    );
  }
}

if (process.argv[2]?.startsWith('{')) void standIns(JSON.parse(process.argv[2]) as Job);
else void main();
