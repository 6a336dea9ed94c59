// The core's side of ranks on other hosts: listens, lets in a worker once both ends proved they
// hold the run's token (session.ts: each end's HMAC over both nonces, then every frame sealed),
// checks its rank against the world, measures its host's clock offset, takes its host's
// environment, and once every rank is in hands the run one link per rank that behaves as a forked
// rank's (remote-link.ts). Unproven connections are few, short-lived and said in a bounded log.
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
} from '../../../shared/run/hosts/hosts.js';
import type { BackendName } from '../../../shared/run/rank/protocol.js';
import type { Environment, HostRecord } from '../../../shared/run/record/record.js';
import { visibleControls } from '../../../shared/data/control-chars.js';
import { nowNs } from '../ground/clock.js';
import type { RankSet, RankSource, WorkerHandlers } from '../run/workers.js';
import { BoundedLog } from './bounded-log.js';
import { freeDescriptors } from './fd-budget.js';
import { FramedLink } from './link.js';
import { remoteLink, type JoinedWorker } from './remote-link.js';
import { sessionKeys } from './session.js';
import { newNonce, proofHolds, proofMac } from './token.js';

/** Pings at the join; the one of smallest round trip gives the host's clock offset (NTP's way). */
export const CLOCK_PINGS = 8;
/** Descriptors kept back for everything else the core opens (records, pipes): below this many free, accepting stops working. */
const DESCRIPTOR_MARGIN = 16;
/** A connection that has not finished its handshake in this long is closed. */
const HANDSHAKE_MS = 10_000;

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
  /** At most this many connections not yet proven at once (default 2 × world + 8), and from one address (default world + 4). */
  maxUnproven?: number;
  maxUnprovenPerAddress?: number;
}

type Link = FramedLink<WorkerLinkMessage, CoreLinkMessage>;

interface Joined extends JoinedWorker {
  address: string;
  environment: Environment;
  rankLog?: string;
}

export class JoinError extends Error {
  readonly code = 'CLAB_NOT_JOINED';
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** A peer's reason, printed: bounded, its controls made visible. */
const said = (reason: string) => visibleControls(reason.slice(0, 300));

export class RemoteRanks implements RankSource {
  private server: Server | null = null;
  private readonly joined = new Map<number, Joined>();
  private readonly pending = new Set<Link>();
  /** Connections not yet proven, per address (IP, no port). */
  private readonly unproven = new Map<string, number>();
  private unprovenCount = 0;
  private readonly refusals: BoundedLog;
  private saidAcceptFailed = false;
  /** Sockets the server holds now, and the descriptors that were free for them when it began to listen. */
  private sockets = 0;
  private descriptors: number | null = null;
  /** The run's id, once open() names it: the proofs cover it, so a challenge waits for it. */
  private runId: string | null = null;
  private readonly runIdWaiters: ((runId: string) => void)[] = [];
  private handed = false;
  private onWorld: (() => void) | null = null;
  private onGiveUp: ((e: Error) => void) | null = null;
  /** Why the wait was given up, once it was (a later open() hears it at once). */
  private closedBecause: string | null = null;

  constructor(private readonly options: ListenOptions) {
    this.refusals = new BoundedLog(options.log);
  }

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
    // An accept that fails (EMFILE: out of file descriptors) leaves the server listening; said once.
    server.on('error', (e: NodeJS.ErrnoException) => this.acceptFailed(e));
    this.descriptors = freeDescriptors();
    if (this.descriptors !== null && this.descriptors < this.options.world + DESCRIPTOR_MARGIN) {
      this.saidAcceptFailed = true;
      this.options.log(
        `${plural(this.options.world, 'rank')} need a file descriptor each here, and only ${this.descriptors} are free: raise \`ulimit -n\` before the run`,
      );
    }
    const address = server.address() as AddressInfo;
    return { host: this.options.host, port: address.port };
  }

  /** Ranks joined so far, for messages. */
  joinedRanks(): number[] {
    return [...this.joined.keys()].sort((a, b) => a - b);
  }

  open(handlers: WorkerHandlers, context: { runId: string }): Promise<RankSet> {
    this.runId = context.runId;
    for (const w of this.runIdWaiters.splice(0)) w(context.runId);
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
    this.refusals.summary('refused or dropped connections');
  }

  /** The server could not take a connection (EMFILE, ENFILE …): said once, with what to do. */
  acceptFailed(e: NodeJS.ErrnoException): void {
    if (this.saidAcceptFailed) return;
    this.saidAcceptFailed = true;
    const fds = e.code === 'EMFILE' || e.code === 'ENFILE' ? ' (out of file descriptors: raise `ulimit -n`, or fewer connections)' : '';
    this.options.log(`cannot accept a connection, or soon cannot: ${e.code ?? e.message}${fds}; still listening for the ranks`);
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

  /** Takes a connection unless too many are unproven (in all, or from its address): then it is closed unread. */
  private accept(socket: Socket): void {
    this.sockets++;
    socket.once('close', () => this.sockets--);
    // libuv closes what it cannot accept without a word (its reserve descriptor): said here, once, when close.
    if (this.descriptors !== null && this.sockets >= this.descriptors - DESCRIPTOR_MARGIN)
      this.acceptFailed(Object.assign(new Error('EMFILE'), { code: 'EMFILE' }));
    const ip = socket.remoteAddress ?? 'unknown';
    const address = `${ip}:${socket.remotePort}`;
    const { world } = this.options;
    const maxAll = this.options.maxUnproven ?? 2 * world + 8;
    const maxHere = this.options.maxUnprovenPerAddress ?? world + 4;
    const here = this.unproven.get(ip) ?? 0;
    if (this.unprovenCount >= maxAll || here >= maxHere) {
      socket.destroy();
      const which = this.unprovenCount >= maxAll ? `${maxAll} in all` : `${maxHere} from ${ip}`;
      return this.refusals.line(`dropped a connection from ${address}: ${which} are waiting to prove the token already`);
    }
    this.unprovenCount++;
    this.unproven.set(ip, here + 1);
    let counted = true;
    const proven = () => {
      if (!counted) return;
      counted = false;
      this.unprovenCount--;
      const left = (this.unproven.get(ip) ?? 1) - 1;
      if (left) this.unproven.set(ip, left);
      else this.unproven.delete(ip);
    };
    this.handshake(socket, address, proven);
  }

  /**
   * hello (the worker's nonce) → challenge (the core's nonce, the run, the core's proof) → proof
   * (the worker's) → sealed from here: pings for the clock, welcome, the host's environment.
   */
  private handshake(socket: Socket, address: string, proven: () => void): void {
    const link: Link = new FramedLink(socket, {
      schema: workerLinkSchema,
      peer: `a worker at ${address}`,
      limit: HANDSHAKE_FRAME_BYTES,
      silenceMs: this.options.silenceMs,
    });
    this.pending.add(link);
    const deadline = setTimeout(() => link.refuse(`no handshake within ${HANDSHAKE_MS / 1000} s`), HANDSHAKE_MS);
    let hello: Hello | null = null;
    /** Set once the worker's proof held: only then is anything it claims said in a line. */
    let who: string | null = null;
    let coreNonce = '';
    let runId = '';
    const samples: ClockSample[] = [];
    let pingSentNs = 0;
    let peerReason: string | null = null;
    const refuse = (reason: string) => link.refuse(reason);
    const ping = () => {
      pingSentNs = nowNs();
      link.send({ type: 'ping', seq: samples.length });
    };
    const challenge = (h: Hello, run: string) => {
      if (link.isClosed) return;
      runId = run;
      coreNonce = newNonce();
      link.send({ type: 'challenge', nonce: coreNonce, runId, mac: proofMac(this.options.token, proofText('core', h, coreNonce, runId)) });
    };
    link.listen(
      (m) => {
        if (m.type === 'refused') {
          peerReason = m.reason;
          return link.close(null);
        }
        if (!hello) {
          if (m.type !== 'hello') return refuse(`expected hello, got ${m.type}`);
          const mismatch = versionMismatch(m);
          if (mismatch) return refuse(mismatch);
          if (!m.nonce) return refuse('the hello carries no nonce');
          hello = m;
          const h = m;
          if (this.runId !== null) return challenge(h, this.runId);
          return void this.runIdWaiters.push((run) => challenge(h, run));
        }
        if (!who) {
          if (m.type !== 'proof' || !coreNonce) return refuse(`expected the proof, got ${m.type}`);
          if (!proofHolds(this.options.token, proofText('worker', hello, coreNonce, runId), m.mac))
            return refuse("wrong token: the worker's proof does not match the run's token");
          link.seal(sessionKeys(this.options.token, hello.nonce!, coreNonce, 'core'));
          proven();
          who = `rank ${hello.rank} (host ${hello.host.name}, ${address})`;
          link.peer = who;
          const why = this.placeRefusal(hello);
          if (why) return refuse(why);
          link.setLimit(LINK_FRAME_BYTES);
          return ping();
        }
        if (m.type === 'pong' && m.seq === samples.length && pingSentNs && samples.length < CLOCK_PINGS) {
          samples.push({ sentNs: pingSentNs, workerNs: m.workerNs, receivedNs: nowNs() });
          if (samples.length < CLOCK_PINGS) return ping();
          return link.send({ type: 'welcome', runId, backend: this.options.backend });
        }
        if (m.type === 'environment' && samples.length === CLOCK_PINGS && !this.joined.has(hello.rank)) {
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
            rankLog: m.rankLog,
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
        proven();
        this.pending.delete(link);
        const h = hello as Hello | null;
        const joinedHere = h !== null && this.joined.get(h.rank)?.link === link;
        // Before its proof, a peer's words are not said: anyone can connect and say anything.
        const why =
          peerReason === null
            ? (cause ?? 'closed')
            : who
              ? `its worker said: ${said(peerReason)}`
              : coreNonce
                ? "it refused the core's proof (a different token on each side, or not a clab worker)"
                : 'it closed the link before proving the token';
        if (joinedHere && !this.handed) {
          this.joined.delete(h.rank);
          this.options.log(`rank ${h.rank} (host ${h.host.name}) left before the run started: ${why}`);
        } else if (!joinedHere) {
          const peer = who ?? `a connection from ${address}`;
          this.refusals.line(link.refusal ? `refused ${peer}: ${link.refusal}` : `${peer} went during its handshake: ${why}`);
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
      const rankLog = j.rankLog !== undefined ? [{ rank: j.hello.rank, path: j.rankLog }] : [];
      if (h) {
        h.ranks.push(j.hello.rank);
        if (rankLog.length) h.rankLogs = [...(h.rankLogs ?? []), ...rankLog];
      } else
        hostsById.set(key, {
          id: j.hello.host.id,
          name: j.hello.host.name,
          bootId: j.hello.host.bootId,
          address: j.address,
          ranks: [j.hello.rank],
          clock: j.clock,
          environment: j.environment,
          ...(rankLog.length ? { rankLogs: rankLog } : {}),
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
