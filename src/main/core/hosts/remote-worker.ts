// `clab worker`'s work: connect back to the core, have the core prove it holds the run's token
// before anything it says is obeyed, prove it in turn, answer the clock pings, send this host's
// environment, then fork the rank process here exactly as the core forks one (workers.ts: same
// entry, same pipes, NCCL's output read from its stdout) and relay between the two over the
// sealed link. The rank never outlives the link: when the core goes, the rank is killed and the
// worker ends. A connection that closes before the welcome is tried again, with backoff, until
// the join deadline. With a log folder, the rank's output is also kept on this host, one file per
// run, host and rank (as torchrun's --log-dir), and the core is told where.
import { closeSync, constants, mkdirSync, openSync, writeSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import {
  coreLinkSchema,
  HANDSHAKE_FRAME_BYTES,
  LINK_FRAME_BYTES,
  INVALID_MESSAGE_CHARS,
  LINK_VERSION,
  OUTPUT_LINE_CHARS,
  proofText,
  type CoreLinkMessage,
  type Hello,
  type HostIdentity,
  type WorkerLinkMessage,
} from '../../../shared/run/hosts/hosts.js';
import type { RankPlace } from '../../../shared/run/hosts/launcher-env.js';
import { PROTOCOL_VERSION, type CoreToWorker } from '../../../shared/run/rank/protocol.js';
import { checkedRankEnv } from '../../../shared/scenario/rank-env.js';
import { visibleControls } from '../../../shared/data/control-chars.js';
import { nowNs } from '../ground/clock.js';
import { collectEnvironment } from '../machine/environment.js';
import { forkWorker, type WorkerLink } from '../run/workers.js';
import { FramedLink, WORKER_SILENCE_MS } from './link.js';
import { sessionKeys } from './session.js';
import { newNonce, proofHolds, proofMac } from './token.js';

export interface RemoteWorkerOptions {
  host: string;
  port: number;
  token: string;
  place: RankPlace;
  identity: HostIdentity;
  /** The rank process's bundle (dist/worker.cjs). */
  entry: string;
  /** How long to keep trying to reach the core (it may not listen yet), and to join it. */
  connectTimeoutMs: number;
  silenceMs?: number;
  log(line: string): void;
  /** Set when the worker should end now (a signal): the rank is killed first. */
  onStop?(stop: (why: string) => void): void;
  /** `--log-dir`: keep the rank's output (stdout and stderr) in a file under this folder (rankLogPath). */
  logDir?: string;
}

/** Exit codes: 0 the rank ended well, 1 it failed, 2 refused or never connected, 3 the core went away. */
export const WORKER_REFUSED = 2;
export const WORKER_CORE_LOST = 3;

const RETRY_MS = 250;
/** Backoff between tries after a connection closed before the welcome: doubling from RETRY_MS up to this. */
const MAX_BACKOFF_MS = 4000;
/** A peer that has not challenged and welcomed this worker in this long is left (and tried again). */
const HANDSHAKE_MS = 10_000;

/** A connection to the core, tried every RETRY_MS until `timeoutMs` (it may not listen yet) or until `stop` aborts. */
async function reach(host: string, port: number, timeoutMs: number, stop: AbortSignal): Promise<Socket> {
  const until = Date.now() + timeoutMs;
  let last = '';
  for (let attempt = 0; attempt < Math.ceil(timeoutMs / RETRY_MS) + 1 && !stop.aborted; attempt++) {
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const s = connect({ host, port, timeout: Math.max(1, until - Date.now()) });
        const abort = () => {
          s.destroy();
          reject(new Error('stopped'));
        };
        stop.addEventListener('abort', abort, { once: true });
        s.once('connect', () => {
          stop.removeEventListener('abort', abort);
          s.setTimeout(0);
          s.removeAllListeners('error');
          resolve(s);
        });
        s.once('timeout', () => {
          s.destroy();
          reject(new Error('timed out'));
        });
        s.once('error', (e) => {
          stop.removeEventListener('abort', abort);
          reject(e);
        });
      });
    } catch (e) {
      last = (e as Error).message;
      if (Date.now() + RETRY_MS > until || stop.aborted) break;
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }
  throw new Error(`cannot reach the core at ${host}:${port} within ${Math.round(timeoutMs / 1000)} s: ${last}`);
}

/** A rank's log file stops growing here, with a line saying so: a rank that prints without end fills no disk. */
export const RANK_LOG_BYTES = 256 * 1024 * 1024;

/** A run id or host name as one safe path component: other characters become "_", at most 128 of them. */
const pathPart = (text: string): string =>
  text
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\./, '_')
    .slice(0, 128) || '_';

/** `<dir>/<run>/<host>.rank<rank>.log`: one file per run, host and rank. */
export const rankLogPath = (dir: string, runId: string, host: string, rank: number): string =>
  join(resolve(dir), pathPart(runId), `${pathPart(host)}.rank${rank}.log`);

/** The rank's output kept on this host: appended (a rejoin of the same run adds to it), no link followed, bounded. */
class RankLog {
  private fd: number | null;
  private written = 0;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW, 0o600);
  }

  line(text: string): void {
    if (this.fd === null) return;
    const bytes = Buffer.from(`${text}\n`, 'utf8');
    if (this.written + bytes.length > RANK_LOG_BYTES) {
      writeSync(this.fd, `[clab worker: the rank's output goes on, not kept here: this file holds ${RANK_LOG_BYTES} bytes at most]\n`);
      return this.close();
    }
    writeSync(this.fd, bytes);
    this.written += bytes.length;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** How one connection ended: with the worker's exit code, or closed before the welcome (try again). */
type Attempt = { code: number } | { retry: string };

export async function runRemoteWorker(o: RemoteWorkerOptions): Promise<number> {
  const me = `rank ${o.place.rank}`;
  const until = Date.now() + o.connectTimeoutMs;
  let stopped: string | null = null;
  let stopNow: ((why: string) => void) | null = null;
  const stopWaiting = new AbortController();
  o.onStop?.((why) => {
    stopped = why;
    stopWaiting.abort();
    if (stopNow) stopNow(why);
    else o.log(`clab worker: ${me}: ${why}; ending`);
  });
  let backoff = RETRY_MS;
  let last = '';
  for (let attempt = 0; attempt < 1000; attempt++) {
    if (stopped !== null) return WORKER_REFUSED;
    let socket: Socket;
    try {
      socket = await reach(o.host, o.port, Math.max(1, until - Date.now()), stopWaiting.signal);
    } catch (e) {
      if (stopped !== null) return WORKER_REFUSED;
      o.log(`clab worker: ${me}: ${(e as Error).message}${last ? ` (the last connection: ${last})` : ''}`);
      return WORKER_REFUSED;
    }
    const outcome = await session(socket, o, (stop) => (stopNow = stop));
    stopNow = null;
    if ('code' in outcome) return outcome.code;
    if (outcome.retry !== last) o.log(`clab worker: ${me}: ${outcome.retry}; trying again until the join deadline`);
    last = outcome.retry;
    if (Date.now() + backoff >= until) break;
    await new Promise((r) => {
      const t = setTimeout(r, backoff);
      stopWaiting.signal.addEventListener('abort', () => (clearTimeout(t), r(undefined)), { once: true });
    });
    backoff = Math.min(2 * backoff, MAX_BACKOFF_MS);
  }
  o.log(`clab worker: ${me}: did not join the core at ${o.host}:${o.port} within ${Math.round(o.connectTimeoutMs / 1000)} s: ${last}`);
  return WORKER_REFUSED;
}

/** One connection: the handshake, then the rank's life. */
function session(socket: Socket, o: RemoteWorkerOptions, onStop: (stop: (why: string) => void) => void): Promise<Attempt> {
  const { place } = o;
  const core = `the core at ${o.host}:${o.port}`;
  const me = `rank ${place.rank}`;
  const link = new FramedLink<CoreLinkMessage, WorkerLinkMessage>(socket, {
    schema: coreLinkSchema,
    peer: core,
    limit: HANDSHAKE_FRAME_BYTES,
    silenceMs: o.silenceMs ?? WORKER_SILENCE_MS,
  });
  const hello: Hello = {
    type: 'hello',
    link: LINK_VERSION,
    protocol: PROTOCOL_VERSION,
    nonce: newNonce(),
    rank: place.rank,
    world: place.world,
    localRank: place.localRank,
    device: place.device,
    host: o.identity,
    pid: process.pid,
  };
  let rank: WorkerLink | null = null;
  /** The run's id, once the core proved it holds the token: nothing the peer says is obeyed before. */
  let runId: string | null = null;
  let welcomed = false;
  let ended = false;
  /** The rank's output file (`--log-dir`), opened at the welcome. */
  let rankLog: RankLog | null = null;
  return new Promise<Attempt>((resolveAttempt) => {
    const finish = (outcome: Attempt) => {
      if (ended) return;
      ended = true;
      clearTimeout(handshake);
      rankLog?.close();
      resolveAttempt(outcome);
    };
    const handshake = setTimeout(() => link.close(`no welcome within ${HANDSHAKE_MS / 1000} s`), HANDSHAKE_MS);
    /** Why the worker is ending its rank (its exit code), once it is. */
    let stopping: number | null = null;
    /** Ends the rank (if any) and then the worker with `code`. */
    const stop = (code: number) => {
      stopping ??= code;
      if (!rank || rank.exited) return finish({ code });
      rank.kill();
      // The rank's close reports below; this bounds the wait for it.
      setTimeout(() => finish({ code }), 3000).unref?.();
    };
    onStop((why) => {
      o.log(`clab worker: ${me}: ${why}; ending the rank`);
      stopping ??= WORKER_CORE_LOST;
      link.end({ type: 'refused', reason: `rank ${place.rank}'s worker on host ${o.identity.name} ${why}` });
      stop(WORKER_CORE_LOST);
    });
    /** Refuses what the core sent, says why here and there, and ends. */
    const giveUp = (why: string) => {
      o.log(`clab worker: ${me}: ${why}`);
      stopping ??= WORKER_REFUSED;
      link.end({ type: 'refused', reason: `rank ${place.rank}'s worker: ${why}` });
      stop(WORKER_REFUSED);
    };
    const startRank = (start: CoreToWorker) => {
      if (start.type !== 'start') return giveUp(`the core sent ${start.type} before start`);
      if (start.rank !== place.rank || start.runId !== runId)
        return giveUp(`the start names rank ${start.rank} of run ${start.runId}; this is rank ${place.rank} of run ${runId}`);
      let planEnv: Record<string, string>;
      try {
        planEnv = checkedRankEnv(start.plan.env);
      } catch (e) {
        return giveUp(`${(e as Error).message}; the rank is not started`);
      }
      const env = { ...process.env, ...planEnv, CLAB_LOCAL_RANK: String(place.localRank) };
      rank = forkWorker(
        o.entry,
        place.rank,
        {
          message: (_, m) => link.send({ type: 'm', m }),
          // Cut to what the core's schema takes: a longer line would end the link.
          output: (_, line) => {
            rankLog?.line(line);
            link.send({ type: 'out', line: line.slice(0, OUTPUT_LINE_CHARS) });
          },
          invalid: (_, e) => link.send({ type: 'invalid', message: e.message.slice(0, INVALID_MESSAGE_CHARS) }),
          exit: (_, code, signal) => {
            link.end({ type: 'exit', code, signal });
            finish({ code: stopping ?? (code === 0 ? 0 : 1) });
          },
        },
        env,
      );
    };
    link.listen(
      (m) => {
        if (m.type === 'refused') {
          const proven = runId !== null ? '' : ' (before it proved the token)';
          o.log(`clab worker: ${me}: refused by ${core}${proven}: ${visibleControls(m.reason.slice(0, 500))}`);
          return stop(WORKER_REFUSED);
        }
        if (runId === null) {
          if (m.type !== 'challenge') return link.close(`the peer sent ${m.type} before proving it holds the run's token`);
          if (!proofHolds(o.token, proofText('core', hello, m.nonce, m.runId), m.mac)) {
            o.log(
              `clab worker: ${me}: ${core} did not prove it holds the run's token (a different token on each side, or not clab's core at that address); nothing was run`,
            );
            stopping = WORKER_REFUSED;
            link.refuse("the core's proof does not match this worker's token");
            return stop(WORKER_REFUSED);
          }
          runId = m.runId;
          link.send({ type: 'proof', mac: proofMac(o.token, proofText('worker', hello, m.nonce, m.runId)) });
          link.seal(sessionKeys(o.token, hello.nonce!, m.nonce, 'worker'), true);
          link.setLimit(LINK_FRAME_BYTES);
          return undefined;
        }
        switch (m.type) {
          case 'ping':
            return welcomed ? undefined : link.send({ type: 'pong', seq: m.seq, workerNs: nowNs() });
          case 'welcome': {
            if (welcomed || m.runId !== runId) return giveUp(`an unexpected welcome (run ${m.runId})`);
            welcomed = true;
            clearTimeout(handshake);
            link.startHeartbeat({ type: 'beat' });
            if (o.logDir !== undefined) {
              const path = rankLogPath(o.logDir, m.runId, o.identity.name, place.rank);
              try {
                rankLog = new RankLog(path);
              } catch (e) {
                // The folder was checked at the start; what fails now is said, and the rank runs without its file.
                o.log(`clab worker: ${me}: cannot keep the rank's output in ${path}: ${(e as Error).message}`);
              }
            }
            o.log(
              `clab worker: ${me} of ${place.world} (${place.source}; local rank ${place.localRank}, device ${place.device}) joined ${core} from host ${o.identity.name}${rankLog ? `; its output kept in ${rankLog.path}` : ''}`,
            );
            void collectEnvironment(m.backend, null, undefined, process.env).then((environment) =>
              link.send({ type: 'environment', environment, ...(rankLog ? { rankLog: rankLog.path } : {}) }),
            );
            return undefined;
          }
          case 'kill':
            return stop(1);
          case 'm':
            if (!welcomed) return giveUp(`the core sent a rank message before the welcome`);
            if (!rank) startRank(m.m);
            // The start goes to the rank it started, as every later message does.
            return (rank as WorkerLink | null)?.send(m.m);
          default:
            return giveUp(`unexpected ${m.type} from the core`);
        }
      },
      (cause) => {
        if (ended || (rank && rank.exited)) return;
        if (stopping !== null) return stop(stopping);
        if (!welcomed) return finish({ retry: `${core} closed the connection before the welcome: ${cause ?? 'closed'}` });
        if (cause) o.log(`clab worker: ${me}: lost ${core}: ${cause}; ending the rank`);
        stop(WORKER_CORE_LOST);
      },
    );
    link.send(hello);
  });
}
