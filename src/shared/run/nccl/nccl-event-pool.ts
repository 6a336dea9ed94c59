// The pool that assembles NCCL's profiler records into calls (NcclColl) between reads. Records
// arrive in any order (a channel's end is recorded by NCCL's proxy thread, later); stops may be
// missing, and some NCCL versions give some channels zero timestamps (NCCL #1961): such channels are
// kept untimed. The addon gives the number of each call it made (NativeTimes.ncclSeq), so a step's
// calls are found by communicator, function and number (find, take). On a communicator split for a
// step's own settings (a sweep's or variant's `ctaPolicy`, a `registration` "window"), the addon does
// not number calls: NCCL numbers neither its copy-engine nor its symmetric calls, so no count of the
// lab's could follow its numbers there. Such a step's calls are counted on their communicator instead
// (takeCalls): copy-engine calls (CeColl, profiler v6) and kernels (Coll), by algorithm and protocol.
// Through profiler v7 (NCCL 2.31) a call also says which step made it (its tag, stepTag), and where
// that is not the step its number joined it to, the tag wins (take).
import {
  PROXY_WAITS,
  p2pFunc,
  type NcclChannel,
  type NcclColl,
  type NcclProfileRecord,
  type NcclProxyOp,
  type NcclTunerRecord,
} from './nccl-records.js';

/** The communicator a tuner record names where NCCL's tuner interface gives none (v4). */
const NO_COMM = '0000000000000000';

const key = (comm: string, func: string, seq: number) => `${comm}/${func}/${seq}`;

/** Takes out of `orphans` (children seen before their parent) those whose parent is `parent`. */
function adopt<T extends { parent: number }>(orphans: Map<number, T>, parent: number): T[] {
  const found: T[] = [];
  for (const [id, o] of orphans) {
    if (o.parent !== parent) continue;
    found.push(o);
    orphans.delete(id);
  }
  return found;
}

/** Appends `item` to the list of `key`, keeping only its newest `limit`. */
function pushCapped<T>(lists: Map<string, T[]>, key: string, item: T, limit: number): void {
  const list = lists.get(key) ?? [];
  list.push(item);
  if (list.length > limit) list.splice(0, list.length - limit);
  lists.set(key, list);
}

/**
 * The collectives seen so far and their channels, fed with each read of the plug-in and emptied as
 * steps take their calls. Holds at most `limit` collectives (the oldest go first), so calls that no
 * step takes (a line-up, a barrier) cannot make it grow without end.
 */
export class NcclEventPool {
  private byId = new Map<number, NcclColl>();
  private bySeq = new Map<string, NcclColl>();
  /** Channels whose Coll is not (yet) known, and ends whose channel start is not (yet) known, by id. */
  private channelOf = new Map<number, NcclChannel>();
  private orphanChannels = new Map<number, { parent: number; channel: NcclChannel }>();
  private orphanEnds = new Map<number, bigint | null>();
  /** Proxy operations by id, and those whose call is not (yet) known. */
  private proxyOf = new Map<number, NcclProxyOp>();
  private orphanProxies = new Map<number, { parent: number; op: NcclProxyOp }>();
  /** The tuner's calls by communicator and function, in time order. */
  private tuner = new Map<string, NcclTunerRecord[]>();
  /** Copy-engine collectives by communicator, in the order NCCL started them. */
  private copyEngine = new Map<string, NcclProfileRecord[]>();

  constructor(private readonly limit = 50_000) {}

  addTuner(records: NcclTunerRecord[]): void {
    for (const t of records) pushCapped(this.tuner, `${t.comm}/${t.func}`, t, this.limit);
  }

  /**
   * NCCL's cost table for a call: the tuner's last call of the same function on its communicator
   * before the call's Coll event (NCCL chooses, then enqueues, on the same thread).
   */
  prediction(c: NcclColl): NcclTunerRecord | undefined {
    const list = this.tuner.get(`${c.comm}/${c.func}`) ?? this.tuner.get(`${NO_COMM}/${c.func}`) ?? [];
    for (let i = list.length - 1; i >= 0; i--) if (list[i].hostNs <= c.startNs) return list[i];
    return undefined;
  }

  /** Point-to-point calls so far, by communicator, direction and peer: NCCL does not number them, the pool does. */
  private p2pCount = new Map<string, number>();

  add(records: NcclProfileRecord[]): void {
    for (const r of records) {
      if (r.kind === 'coll') this.addColl(r);
      else if (r.kind === 'p2p') this.addP2p(r);
      else if (r.kind === 'kernel-ch') this.addChannel(r);
      else if (r.kind === 'proxy-op') this.addProxyOp(r);
      else if (r.kind === 'ce-coll') pushCapped(this.copyEngine, r.comm, r, this.limit);
    }
    this.trim();
  }

  /**
   * Takes every call of `func` on communicator `comm` out of the pool: those NCCL ran on copy
   * engines, and the Coll events of its kernels that have `count` elements (which leaves out the
   * lab's one-float line-ups of another step's size).
   */
  takeCalls(comm: string, func: string, count: number): { copyEngine: NcclProfileRecord[]; kernels: NcclColl[] } {
    const all = this.copyEngine.get(comm) ?? [];
    const copyEngine = all.filter((r) => r.func === func);
    this.copyEngine.set(
      comm,
      all.filter((r) => r.func !== func),
    );
    const kernels: NcclColl[] = [];
    for (const [id, c] of this.byId) {
      if (c.comm !== comm || c.func !== func) continue;
      this.remove(id, c);
      if (c.count === count) kernels.push(c);
    }
    return { copyEngine, kernels };
  }

  /**
   * A send or recv, numbered among its communicator's calls of that direction to that peer in the
   * order NCCL started them (the addon numbers its own calls alike: NativeTimes.ncclSeq), kept as a
   * call of function "Send:peer" or "Recv:peer" with algorithm P2P.
   */
  private addP2p(r: NcclProfileRecord): void {
    if (r.point !== 'start') return this.addColl(r);
    const func = p2pFunc(r.func, r.peer);
    const k = `${r.comm}/${func}`;
    const seq = this.p2pCount.get(k) ?? 0;
    this.p2pCount.set(k, seq + 1);
    this.addColl({ ...r, func, seq, algo: 'P2P', proto: '-' });
  }

  private addColl(r: NcclProfileRecord): void {
    if (r.point === 'start') {
      const c: NcclColl = {
        id: r.id,
        comm: r.comm,
        seq: r.seq,
        func: r.func,
        count: r.count,
        datatype: r.datatype,
        algo: r.algo,
        proto: r.proto,
        nChannels: r.nChannels,
        nWarps: r.nWarps,
        ...(r.kernel ? { kernel: r.kernel } : {}),
        ...(r.symmetric ? { symmetric: true } : {}),
        ...(r.userTag ? { tag: r.userTag } : {}),
        startNs: r.hostNs,
        stopNs: null,
        channels: [],
        proxyOps: [],
      };
      this.byId.set(r.id, c);
      this.bySeq.set(key(r.comm, r.func, r.seq), c);
      for (const o of adopt(this.orphanChannels, r.id)) c.channels.push(o.channel);
      for (const o of adopt(this.orphanProxies, r.id)) c.proxyOps.push(o.op);
    } else if (r.point === 'stop') {
      const c = this.byId.get(r.id);
      if (c) c.stopNs = r.hostNs;
    }
  }

  private addChannel(r: NcclProfileRecord): void {
    const time = (t: bigint) => (t === 0n ? null : t);
    if (r.point === 'start') {
      const ch: NcclChannel = { channel: r.channel, startGpuNs: time(r.gpuNs), endGpuNs: null, ended: false };
      if (this.orphanEnds.has(r.id)) {
        ch.endGpuNs = this.orphanEnds.get(r.id)!;
        ch.ended = true;
        this.orphanEnds.delete(r.id);
      }
      this.channelOf.set(r.id, ch);
      const parent = this.byId.get(r.parent);
      if (parent) parent.channels.push(ch);
      else this.orphanChannels.set(r.id, { parent: r.parent, channel: ch });
    } else if (r.point === 'channel-end') {
      const ch = this.channelOf.get(r.id);
      if (ch) {
        ch.endGpuNs = time(r.gpuNs);
        ch.ended = true;
      } else this.orphanEnds.set(r.id, time(r.gpuNs));
    }
  }

  private addProxyOp(r: NcclProfileRecord): void {
    if (r.point === 'start') {
      const op: NcclProxyOp = {
        channel: r.channel,
        peer: r.peer,
        isSend: r.isSend,
        plannedSteps: r.steps,
        steps: 0,
        chunk: r.chunk,
        bytes: 0,
        startNs: r.hostNs,
        stopNs: null,
        firstStepNs: 0,
        lastStepNs: 0,
        waitNs: PROXY_WAITS.map(() => 0),
      };
      this.proxyOf.set(r.id, op);
      const parent = this.byId.get(r.parent);
      if (parent) parent.proxyOps.push(op);
      else this.orphanProxies.set(r.id, { parent: r.parent, op });
    } else if (r.point === 'stop') {
      const op = this.proxyOf.get(r.id);
      if (!op) return;
      this.proxyOf.delete(r.id);
      op.stopNs = r.hostNs;
      op.steps = r.steps;
      op.bytes = r.count;
      op.firstStepNs = r.firstStepNs ?? 0;
      op.lastStepNs = r.lastStepNs ?? 0;
      if (r.waitNs) op.waitNs = PROXY_WAITS.map((_, i) => r.waitNs![i] ?? 0);
    }
  }

  private trim(): void {
    for (const [id, c] of this.byId) {
      if (this.byId.size <= this.limit) break;
      this.remove(id, c);
    }
    // Channels and ends never claimed: kept only as long as a window of collectives.
    const cap = (m: Map<number, unknown>) => {
      for (const id of m.keys()) {
        if (m.size <= this.limit) break;
        m.delete(id);
      }
    };
    cap(this.orphanChannels);
    cap(this.orphanEnds);
    cap(this.orphanProxies);
    cap(this.proxyOf);
    cap(this.channelOf);
  }

  private remove(id: number, c: NcclColl): void {
    this.byId.delete(id);
    this.bySeq.delete(key(c.comm, c.func, c.seq));
  }

  /** The collective `func` number `seq` of communicator `comm`, if seen. */
  find(comm: string, func: string, seq: number): NcclColl | undefined {
    return this.bySeq.get(key(comm, func, seq));
  }

  /** Whether every call of `seqs` is seen with every channel it announced started and ended, and every proxy operation stopped. */
  complete(comm: string, func: string, seqs: number[]): boolean {
    return seqs.every((s) => {
      const c = this.find(comm, func, s);
      return (
        c !== undefined &&
        c.channels.length >= c.nChannels &&
        c.channels.every((ch) => ch.ended) &&
        c.proxyOps.every((p) => p.stopNs !== null)
      );
    });
  }

  /**
   * Takes the calls `seqs` out of the pool (those seen), in the order asked. With the step's `tag`
   * (stepTag): a call whose own tag (profiler v7) names another step is that step's whatever its
   * number says, NCCL's word over the lab's count: it is handed back (joinStep counts it apart) but
   * left in the pool.
   */
  take(comm: string, func: string, seqs: number[], tag?: number): (NcclColl | null)[] {
    return seqs.map((s) => {
      const c = this.find(comm, func, s);
      if (!c) return null;
      if (tag === undefined || c.tag === undefined || c.tag === tag) this.remove(c.id, c);
      return c;
    });
  }

  get size(): number {
    return this.byId.size;
  }
}
