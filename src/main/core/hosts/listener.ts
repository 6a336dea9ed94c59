// The core's side of ranks on other hosts: listens, lets in a worker that proves it holds the
// run's token (the nonce's HMAC, checked in constant time), checks its rank against the world,
// measures its host's clock offset, takes its host's environment, and once every rank is in hands
// the run one link per rank that behaves as a forked rank's (workers.ts).
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import {
  clockOffset,
  HANDSHAKE_FRAME_BYTES,
  LINK_FRAME_BYTES,
  proofText,
  versionMismatch,
  workerLinkSchema,
  type ClockSample,
  type CoreLinkMessage,
  type Hello,
  type WorkerLinkMessage,
} from '../../../shared/run/hosts.js';
import type { BackendName, CoreToWorker, TimelineEvent, WorkerToCore } from '../../../shared/run/protocol.js';
import type { Environment, HostRecord } from '../../../shared/run/record.js';
import { nowNs } from '../clock.js';
import type { RankSet, RankSource, WorkerHandlers, WorkerLink } from '../workers.js';
import { encodeJsonFrame } from './frames.js';
import { FramedLink } from './link.js';
import { newNonce, proofHolds } from './token.js';

/** Pings at the join; the one of smallest round trip gives the host's clock offset (NTP's way). */
export const CLOCK_PINGS = 8;
/** A connection that has not finished its handshake in this long is closed. */
const HANDSHAKE_MS = 10_000;
/** After `kill`, how long a worker gets to say how its rank ended before its link is closed. */
const KILL_GRACE_MS = 2000;

export interface ListenOptions {
  host: string;
  port: number;
  token: string;
  world: number;
  backend: BackendName;
  /** How long the world may take to join. */
  joinTimeoutMs: number;
  /** A link silent for this long is lost (default link.ts's). */
  silenceMs?: number;
  /** The lab's own lines: a worker refused or gone before the run. */
  log(line: string): void;
}

type Link = FramedLink<WorkerLinkMessage, CoreLinkMessage>;

interface Joined {
  hello: Hello;
  link: Link;
  address: string;
  clock: HostRecord['clock'];
  environment: Environment;
}

export class JoinError extends Error {
  readonly code = 'CLAB_NOT_JOINED';
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

export class RemoteRanks implements RankSource {
  private server: Server | null = null;
  private readonly joined = new Map<number, Joined>();
  private readonly pending = new Set<Link>();
  private runId = '';
  private handed = false;
  private onWorld: (() => void) | null = null;
  private onGiveUp: ((e: Error) => void) | null = null;
  /** Why the wait was given up, once it was (a later open() hears it at once). */
  private closedBecause: string | null = null;

  constructor(private readonly options: ListenOptions) {}

  /** Binds the port (0: any free one) and says where it listens. */
  async listen(): Promise<{ host: string; port: number }> {
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    return { host: this.options.host, port: address.port };
  }

  /** Ranks joined so far, for messages. */
  joinedRanks(): number[] {
    return [...this.joined.keys()].sort((a, b) => a - b);
  }

  open(handlers: WorkerHandlers, context: { runId: string }): Promise<RankSet> {
    this.runId = context.runId;
    return new Promise<RankSet>((resolve, reject) => {
      if (this.closedBecause !== null) return reject(new JoinError(this.closedBecause));
      const timer = setTimeout(
        () => this.close(this.missing(`did not join within ${Math.round(this.options.joinTimeoutMs / 1000)} s`)),
        this.options.joinTimeoutMs,
      );
      this.onGiveUp = (e) => {
        clearTimeout(timer);
        reject(e);
      };
      this.onWorld = () => {
        clearTimeout(timer);
        this.handed = true;
        // Still listening, to refuse a late or extra worker with a reason rather than a closed port.
        this.onGiveUp = null;
        resolve(this.rankSet(handlers));
      };
      if (this.joined.size === this.options.world) this.onWorld();
    });
  }

  close(reason: string): void {
    this.closedBecause ??= reason;
    this.stopListening();
    for (const link of this.pending) link.refuse(`the run ended before this worker joined: ${reason}`);
    if (!this.handed) for (const j of this.joined.values()) j.link.refuse(`the run did not start: ${reason}`);
    this.onGiveUp?.(new JoinError(reason));
    this.onGiveUp = null;
  }

  private stopListening(): void {
    this.server?.close();
    this.server = null;
  }

  /** Who joined and who did not: "2 of 4 ranks did not join …: joined 0 (host a), 1 (host a); missing 2, 3". */
  private missing(why: string): string {
    const all = Array.from({ length: this.options.world }, (_, r) => r);
    const absent = all.filter((r) => !this.joined.has(r));
    const present = this.joinedRanks().map((r) => `${r} (host ${this.joined.get(r)!.hello.host.name})`);
    return `${absent.length} of ${plural(this.options.world, 'rank')} ${why}: joined ${present.length ? present.join(', ') : 'none'}; missing ${absent.join(', ')}`;
  }

  private accept(socket: Socket): void {
    const address = `${socket.remoteAddress}:${socket.remotePort}`;
    const link: Link = new FramedLink(socket, {
      schema: workerLinkSchema,
      peer: `a worker at ${address}`,
      limit: HANDSHAKE_FRAME_BYTES,
      silenceMs: this.options.silenceMs,
    });
    this.pending.add(link);
    const deadline = setTimeout(() => link.refuse(`no handshake within ${HANDSHAKE_MS / 1000} s`), HANDSHAKE_MS);
    let hello: Hello | null = null;
    let nonce = '';
    const samples: ClockSample[] = [];
    let pingSentNs = 0;
    const refuse = (reason: string) => link.refuse(reason);
    const ping = () => {
      pingSentNs = nowNs();
      link.send({ type: 'ping', seq: samples.length });
    };
    link.listen(
      (m) => {
        if (!hello) {
          if (m.type !== 'hello') return refuse(`expected hello, got ${m.type}`);
          const mismatch = versionMismatch(m);
          if (mismatch) return refuse(mismatch);
          hello = m;
          link.peer = `rank ${m.rank} (host ${m.host.name}, ${address})`;
          nonce = newNonce();
          return link.send({ type: 'challenge', nonce });
        }
        if (m.type === 'proof' && samples.length === 0 && pingSentNs === 0) {
          if (!proofHolds(this.options.token, proofText(nonce, hello), m.mac))
            return refuse("wrong token: the worker's answer to the challenge does not match the run's token");
          const why = this.placeRefusal(hello);
          if (why) return refuse(why);
          link.setLimit(LINK_FRAME_BYTES);
          return ping();
        }
        if (m.type === 'pong' && m.seq === samples.length && pingSentNs) {
          samples.push({ sentNs: pingSentNs, workerNs: m.workerNs, receivedNs: nowNs() });
          if (samples.length < CLOCK_PINGS) return ping();
          return link.send({ type: 'welcome', runId: this.runId, backend: this.options.backend });
        }
        if (m.type === 'environment' && samples.length === CLOCK_PINGS) {
          clearTimeout(deadline);
          // Checked again: another worker may have taken the rank meanwhile.
          const why = this.placeRefusal(hello);
          if (why) return refuse(why);
          this.pending.delete(link);
          this.joined.set(hello.rank, {
            hello,
            link,
            address: socket.remoteAddress ?? address,
            clock: clockOffset(samples),
            environment: m.environment,
          });
          this.options.log(
            `rank ${hello.rank} joined from host ${hello.host.name} (${address}, pid ${hello.pid}); ${this.joined.size} of ${this.options.world} in`,
          );
          link.startHeartbeat({ type: 'beat' });
          if (this.joined.size === this.options.world) this.onWorld?.();
          return undefined;
        }
        return refuse(`unexpected ${m.type} during the handshake`);
      },
      (cause) => {
        clearTimeout(deadline);
        this.pending.delete(link);
        const h = hello as Hello | null;
        if (h && this.joined.get(h.rank)?.link === link && !this.handed) {
          this.joined.delete(h.rank);
          this.options.log(`rank ${h.rank} (host ${h.host.name}) left before the run started: ${cause ?? 'closed'}`);
        } else if (!(h && this.joined.get(h.rank)?.link === link)) {
          const who = `a worker at ${address}${h ? ` (rank ${h.rank}, host ${h.host.name})` : ''}`;
          this.options.log(link.refusal ? `refused ${who}: ${link.refusal}` : `${who} went during its handshake: ${cause ?? 'closed'}`);
        }
      },
    );
  }

  /** Why a proven worker cannot have its rank: out of range, another world, taken, or (cpu) on another host. */
  private placeRefusal(hello: Hello): string | null {
    const { world, backend } = this.options;
    if (hello.world !== world) return `the worker was started for a world of ${hello.world}; this run has ${plural(world, 'rank')}`;
    if (hello.rank >= world) return `rank ${hello.rank} is out of range: this run has ${plural(world, 'rank')} (0 to ${world - 1})`;
    const holder = this.joined.get(hello.rank);
    if (holder)
      return `rank ${hello.rank} is taken (by pid ${holder.hello.pid} on host ${holder.hello.host.name})${this.handed ? `: the run has all its ${plural(world, 'rank')}` : ''}`;
    // The first rank in says which host a cpu run is on.
    const first = [...this.joined.values()][0];
    if (backend === 'cpu' && first) {
      if (first.hello.host.id !== hello.host.id) {
        const ranks = this.joinedRanks().join(', ');
        return `cpu ranks share memory, so they must all run on one host: rank${this.joined.size > 1 ? 's' : ''} ${ranks} ${this.joined.size > 1 ? 'are' : 'is'} on host ${first.hello.host.name} (id ${first.hello.host.id}), rank ${hello.rank} on host ${hello.host.name} (id ${hello.host.id}); start every worker on one host, or run on nccl`;
      }
    }
    return null;
  }

  private rankSet(handlers: WorkerHandlers): RankSet {
    const joined = Array.from({ length: this.options.world }, (_, r) => this.joined.get(r)!);
    const hostsById = new Map<string, HostRecord>();
    for (const j of joined) {
      // One entry per identity and name: a host named apart (a namespace, a container) is listed apart.
      const key = `${j.hello.host.id}\n${j.hello.host.name}`;
      const h = hostsById.get(key);
      if (h) h.ranks.push(j.hello.rank);
      else
        hostsById.set(key, {
          id: j.hello.host.id,
          name: j.hello.host.name,
          bootId: j.hello.host.bootId,
          address: j.address,
          ranks: [j.hello.rank],
          clock: j.clock,
          environment: j.environment,
        });
    }
    const hosts = [...hostsById.values()];
    const hostOf = (rank: number) => joined[rank].hello.host.name;
    return {
      links: joined.map((j) => remoteLink(j, handlers)),
      devices: joined.map((j) => j.hello.device),
      hosts,
      where: (rank) => `rank ${rank} on host ${hostOf(rank)}`,
    };
  }
}

/** Remote times onto the core's clock: t on the worker's host is t − offset here. */
function shifted(m: WorkerToCore, offsetNs: number): WorkerToCore {
  if (!offsetNs) return m;
  const shift = (e: TimelineEvent): TimelineEvent => ({ ...e, startNs: e.startNs - offsetNs, endNs: e.endNs - offsetNs });
  switch (m.type) {
    case 'step-end':
      return { ...m, events: m.events.map(shift) };
    case 'step-begin':
    case 'log':
      return { ...m, atNs: m.atNs - offsetNs };
    default:
      return m;
  }
}

/** Each run's plan as JSON, made once: every rank's `start` carries the same plan (1024 ranks: 0.3 s saved). */
const planJson = new WeakMap<object, string>();

/** `{type: 'm', m: start}` framed, with the plan's JSON made once per plan rather than once per rank. */
export function startFrame(start: Extract<CoreToWorker, { type: 'start' }>): Buffer {
  let plan = planJson.get(start.plan);
  if (plan === undefined) {
    plan = JSON.stringify(start.plan);
    planJson.set(start.plan, plan);
  }
  const { plan: _plan, ...rest } = start;
  return encodeJsonFrame(`{"type":"m","m":${JSON.stringify(rest).slice(0, -1)},"plan":${plan}}}`);
}

function remoteLink(j: Joined, handlers: WorkerHandlers): WorkerLink {
  const rank = j.hello.rank;
  let exited = false;
  let killTimer: NodeJS.Timeout | undefined;
  const exit = (code: number | null, signal: string | null, lost?: string) => {
    if (exited) return;
    exited = true;
    clearTimeout(killTimer);
    handlers.exit(rank, code, signal as NodeJS.Signals | null, lost);
  };
  j.link.listen(
    (m) => {
      if (exited) return;
      switch (m.type) {
        case 'm':
          return handlers.message(rank, shifted(m.m, j.clock.offsetNs));
        case 'out':
          return handlers.output(rank, m.line);
        case 'invalid':
          return handlers.invalid(rank, new Error(m.message));
        case 'exit':
          exit(m.code, m.signal);
          return j.link.end();
        case 'refused':
          return exit(null, null, `its worker gave up: ${m.reason}`);
        default:
          return handlers.invalid(rank, new Error(`unexpected ${m.type} from rank ${rank}'s worker`));
      }
    },
    (cause) => exit(null, null, cause ?? 'the link was closed'),
  );
  return {
    rank,
    pid: j.hello.pid,
    get exited() {
      return exited;
    },
    send: (message) => (message.type === 'start' ? j.link.sendFrame(startFrame(message)) : j.link.send({ type: 'm', m: message })),
    kill() {
      if (exited) return;
      j.link.send({ type: 'kill' });
      killTimer = setTimeout(() => j.link.close('killed; its worker did not say how its rank ended'), KILL_GRACE_MS);
    },
  };
}
