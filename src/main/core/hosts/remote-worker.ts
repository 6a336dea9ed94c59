// `clab worker`'s work: connect back to the core, prove the token, answer the clock pings, send
// this host's environment, then fork the rank process here exactly as the core forks one
// (workers.ts: same entry, same pipes, NCCL's output read from its stdout) and relay between the
// two. The rank never outlives the link: when the core goes, the rank is killed and the worker ends.
import { connect, type Socket } from 'node:net';
import {
  coreLinkSchema,
  HANDSHAKE_FRAME_BYTES,
  LINK_FRAME_BYTES,
  LINK_VERSION,
  proofText,
  type CoreLinkMessage,
  type Hello,
  type HostIdentity,
  type WorkerLinkMessage,
} from '../../../shared/run/hosts.js';
import type { RankPlace } from '../../../shared/run/launcher-env.js';
import { PROTOCOL_VERSION, type CoreToWorker } from '../../../shared/run/protocol.js';
import { nowNs } from '../clock.js';
import { collectEnvironment } from '../environment.js';
import { forkWorker, type WorkerLink } from '../workers.js';
import { FramedLink, WORKER_SILENCE_MS } from './link.js';
import { proofMac } from './token.js';

export interface RemoteWorkerOptions {
  host: string;
  port: number;
  token: string;
  place: RankPlace;
  identity: HostIdentity;
  /** The rank process's bundle (dist/worker.cjs). */
  entry: string;
  /** How long to keep trying to reach the core (it may not listen yet). */
  connectTimeoutMs: number;
  silenceMs?: number;
  log(line: string): void;
  /** Set when the worker should end now (a signal): the rank is killed first. */
  onStop?(stop: (why: string) => void): void;
}

/** Exit codes: 0 the rank ended well, 1 it failed, 2 refused or never connected, 3 the core went away. */
export const WORKER_REFUSED = 2;
export const WORKER_CORE_LOST = 3;

const RETRY_MS = 250;

async function reach(host: string, port: number, timeoutMs: number): Promise<Socket> {
  const until = Date.now() + timeoutMs;
  let last = '';
  for (let attempt = 0; attempt < Math.ceil(timeoutMs / RETRY_MS) + 1; attempt++) {
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const s = connect({ host, port, timeout: Math.max(1, until - Date.now()) });
        s.once('connect', () => {
          s.setTimeout(0);
          s.removeAllListeners('error');
          resolve(s);
        });
        s.once('timeout', () => {
          s.destroy();
          reject(new Error('timed out'));
        });
        s.once('error', reject);
      });
    } catch (e) {
      last = (e as Error).message;
      if (Date.now() + RETRY_MS > until) break;
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }
  throw new Error(`cannot reach the core at ${host}:${port} within ${Math.round(timeoutMs / 1000)} s: ${last}`);
}

export async function runRemoteWorker(o: RemoteWorkerOptions): Promise<number> {
  const { place } = o;
  const core = `the core at ${o.host}:${o.port}`;
  const me = `rank ${place.rank}`;
  let socket: Socket;
  try {
    socket = await reach(o.host, o.port, o.connectTimeoutMs);
  } catch (e) {
    o.log(`clab worker: ${me}: ${(e as Error).message}`);
    return WORKER_REFUSED;
  }
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
    rank: place.rank,
    world: place.world,
    localRank: place.localRank,
    device: place.device,
    host: o.identity,
    pid: process.pid,
  };
  let rank: WorkerLink | null = null;
  let welcomed = false;
  let ended = false;
  return new Promise<number>((resolve) => {
    const finish = (code: number) => {
      if (ended) return;
      ended = true;
      resolve(code);
    };
    /** Why the worker is ending its rank (its exit code), once it is. */
    let stopping: number | null = null;
    /** Ends the rank (if any) and then the worker with `code`. */
    const stop = (code: number) => {
      stopping ??= code;
      if (!rank || rank.exited) return finish(code);
      rank.kill();
      // The rank's close reports below; this bounds the wait for it.
      setTimeout(() => finish(code), 3000).unref?.();
    };
    o.onStop?.((why) => {
      o.log(`clab worker: ${me}: ${why}; ending the rank`);
      link.end({ type: 'refused', reason: `rank ${place.rank}'s worker on host ${o.identity.name} ${why}` });
      stop(WORKER_CORE_LOST);
    });
    const startRank = (start: CoreToWorker) => {
      if (start.type !== 'start') return;
      const env = { ...process.env, ...start.plan.env, CLAB_LOCAL_RANK: String(place.localRank) };
      rank = forkWorker(
        o.entry,
        place.rank,
        {
          message: (_, m) => link.send({ type: 'm', m }),
          output: (_, line) => link.send({ type: 'out', line }),
          invalid: (_, e) => link.send({ type: 'invalid', message: e.message }),
          exit: (_, code, signal) => {
            link.end({ type: 'exit', code, signal });
            finish(stopping ?? (code === 0 ? 0 : 1));
          },
        },
        env,
      );
    };
    link.listen(
      (m) => {
        switch (m.type) {
          case 'challenge':
            return link.send({ type: 'proof', mac: proofMac(o.token, proofText(m.nonce, hello)) });
          case 'ping':
            return link.send({ type: 'pong', seq: m.seq, workerNs: nowNs() });
          case 'welcome': {
            welcomed = true;
            link.setLimit(LINK_FRAME_BYTES);
            link.startHeartbeat({ type: 'beat' });
            o.log(
              `clab worker: ${me} of ${place.world} (${place.source}; local rank ${place.localRank}, device ${place.device}) joined ${core} from host ${o.identity.name}`,
            );
            void collectEnvironment(m.backend, null, undefined, process.env).then((environment) =>
              link.send({ type: 'environment', environment }),
            );
            return undefined;
          }
          case 'refused':
            o.log(`clab worker: ${me}: refused by ${core}: ${m.reason}`);
            return stop(WORKER_REFUSED);
          case 'kill':
            return stop(1);
          case 'm':
            if (!rank) startRank(m.m);
            return rank?.send(m.m);
          default:
            return undefined;
        }
      },
      (cause) => {
        if (ended || (rank && rank.exited)) return;
        if (cause) o.log(`clab worker: ${me}: lost ${core}: ${cause}; ending the rank`);
        stop(welcomed ? WORKER_CORE_LOST : WORKER_REFUSED);
      },
    );
    link.send(hello);
  });
}
