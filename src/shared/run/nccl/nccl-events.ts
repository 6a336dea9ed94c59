// Inside NCCL: the events the lab's profiler plug-in kept (native/profiler/), assembled and joined
// to the lab's steps. NCCL numbers the calls of each collective type per communicator
// (`seqNumber`); the addon gives the number of each call it made (NativeTimes.ncclSeq), so a step's
// calls are found by communicator, function and number. A Coll event's stop only says it was
// enqueued: its kernel channels (KernelCh, children of the Coll) carry the GPU's %globaltimer at
// their start and end, which give the call's real span. Records arrive in any order between reads
// (a channel's end is recorded by NCCL's proxy thread, later); stops may be missing, and some NCCL
// versions give some channels zero timestamps (NCCL #1961): such channels are counted, not timed.
// On a communicator split for a step's own settings (a sweep's or variant's `ctaPolicy`, a
// `registration` "window"), the addon does not number calls: NCCL numbers neither its copy-engine
// nor its symmetric calls, so no count of the lab's could follow its numbers there. Such a step's
// calls are counted on their communicator instead (takeCalls): copy-engine calls (CeColl, profiler
// v6) and kernels (Coll), by algorithm and protocol.
import { z } from 'zod';
import { gpuToHostNs, type GpuClockSample } from './gpu-clock.js';

/** One record as the addon reads it from the plug-in (native/profiler/profile_record.h). */
export interface NcclProfileRecord {
  /** ce-coll: a collective NCCL ran on copy engines (algo "CE", proto its synchronisation, "MC" or "UC"). */
  kind: 'comm' | 'coll' | 'p2p' | 'kernel-ch' | 'proxy-op' | 'proxy-step' | 'ce-coll';
  /** channel-end: a kernel channel's end as the GPU timed it (gpuNs); state: another state (`state`). */
  point: 'start' | 'stop' | 'channel-end' | 'state';
  id: number;
  parent: number;
  /** NCCL's hash of the communicator, as hex. */
  comm: string;
  hostNs: number;
  gpuNs: bigint;
  seq: number;
  count: number;
  /** comm: the rank in it; coll: the caller's rank. */
  rank: number;
  /** coll: root; p2p, proxy-op: the peer; comm: the number of ranks. */
  peer: number;
  steps: number;
  chunk: number;
  channel: number;
  nChannels: number;
  nWarps: number;
  isSend: boolean;
  state: number;
  func: string;
  datatype: string;
  algo: string;
  proto: string;
  /** proxy-op stop: its steps' first start and last stop (host clock), and their time per wait (ns, PROXY_WAITS' order). */
  firstStepNs?: number;
  lastStepNs?: number;
  waitNs?: number[];
}

/** Where a proxy step's time goes (the plug-in sums NCCL's ProxyStep states per ProxyOp), in the record's order. */
export const PROXY_WAITS = ['gpu', 'peer', 'network', 'flush'] as const;
export type ProxyWait = (typeof PROXY_WAITS)[number];

/**
 * One operation of NCCL's proxy thread (where the network carries the data): one channel's send to
 * or receive from one peer for a call, in steps of `chunk` bytes, on the host clock.
 */
export interface NcclProxyOp {
  channel: number;
  peer: number;
  isSend: boolean;
  /** The steps NCCL planned, and those that ran (known at its stop). */
  plannedSteps: number;
  steps: number;
  chunk: number;
  bytes: number;
  startNs: number;
  /** When NCCL stopped it; null: not (yet) seen. */
  stopNs: number | null;
  /** Its steps' first start and last stop; 0 where none ran. */
  firstStepNs: number;
  lastStepNs: number;
  /** Its steps' time waiting for the GPU, the peer's credit, the network, a receive's flush (ns, summed). */
  waitNs: number[];
}

/**
 * One call of the lab's pass-through tuner: NCCL's predicted time (µs) per algorithm × protocol for
 * a collective it is about to enqueue (rows TUNER_ALGORITHMS, columns TUNER_PROTOCOLS; -1: ruled out).
 */
export interface NcclTunerRecord {
  /** NCCL's hash of the communicator ("0000000000000000" where NCCL's tuner interface gives none: v4). */
  comm: string;
  hostNs: number;
  func: string;
  bytes: number;
  pipeOps: number;
  costUs: number[][];
}

/** NCCL 2.28's order of algorithms and protocols in its cost table, in the names its profiler uses. */
export const TUNER_ALGORITHMS = ['TREE', 'RING', 'COLLNET_DIRECT', 'COLLNET_CHAIN', 'NVLS', 'NVLS_TREE', 'PAT'];
export const TUNER_PROTOCOLS = ['LL', 'LL128', 'SIMPLE'];
const NO_COMM = '0000000000000000';

/** A cost table as "ALGO/PROTO" → µs, leaving out what NCCL ruled out. */
export function predictionTable(t: NcclTunerRecord): Record<string, number> {
  const out: Record<string, number> = {};
  t.costUs.forEach((row, a) =>
    row.forEach((us, p) => {
      if (us >= 0 && TUNER_ALGORITHMS[a] && TUNER_PROTOCOLS[p]) out[`${TUNER_ALGORITHMS[a]}/${TUNER_PROTOCOLS[p]}`] = us;
    }),
  );
  return out;
}

/** The function a send or recv is kept under: NCCL's name and the peer ("Send:1"). */
export const p2pFunc = (func: string, peer: number) => `${func}:${peer}`;

/** NCCL's name of each native collective that has a sequence number (a barrier is a one-element all_reduce). */
export const NCCL_FUNC: Readonly<Record<string, string>> = {
  all_reduce: 'AllReduce',
  barrier: 'AllReduce',
  broadcast: 'Broadcast',
  reduce: 'Reduce',
  all_gather: 'AllGather',
  reduce_scatter: 'ReduceScatter',
};

/**
 * NCCL's name of each native collective's calls, as its profiler events and INFO lines give them
 * (ncclFuncToString): NCCL_FUNC's, and those NCCL does not number.
 */
export const NCCL_CALL_NAME: Readonly<Record<string, string>> = {
  ...NCCL_FUNC,
  all_to_all: 'AlltoAll',
  gather: 'Gather',
  scatter: 'Scatter',
};

export interface NcclChannel {
  channel: number;
  /** %globaltimer at the channel kernel's start and end; null: stamped zero (NCCL #1961), or no end yet. */
  startGpuNs: bigint | null;
  endGpuNs: bigint | null;
  /** Whether NCCL recorded the channel's end. */
  ended: boolean;
}

export interface NcclColl {
  id: number;
  comm: string;
  seq: number;
  func: string;
  count: number;
  datatype: string;
  algo: string;
  proto: string;
  nChannels: number;
  nWarps: number;
  /** Host clock at the call (start) and when NCCL had enqueued it (stop; null: not seen). */
  startNs: number;
  stopNs: number | null;
  channels: NcclChannel[];
  /** Its proxy operations (where the network carries the data). */
  proxyOps: NcclProxyOp[];
}

/**
 * The communicator this rank joined last, from the plug-in's init records: its hash, or null where
 * none matches (the plug-in was not loaded, or NCCL did not initialise it).
 */
export function communicatorOf(records: NcclProfileRecord[], rank: number, world: number): string | null {
  const inits = records.filter((r) => r.kind === 'comm' && r.rank === rank && r.peer === world);
  return inits.length ? inits[inits.length - 1].comm : null;
}

/**
 * The run's communicator and the `splits` split off it as it was joined (made right after it, in
 * order), from the plug-in's init records: this rank's last `splits` + 1 inits; null where there are
 * fewer (NCCL did not load the plug-in).
 */
export function joinedCommunicators(
  records: NcclProfileRecord[],
  rank: number,
  world: number,
  splits: number,
): { run: string; splits: string[] } | null {
  const inits = records.filter((r) => r.kind === 'comm' && r.rank === rank && r.peer === world).map((r) => r.comm);
  if (inits.length < splits + 1) return null;
  const ours = inits.slice(inits.length - splits - 1);
  return { run: ours[0], splits: ours.slice(1) };
}

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
    for (const t of records) {
      const k = `${t.comm}/${t.func}`;
      const list = this.tuner.get(k) ?? [];
      list.push(t);
      if (list.length > this.limit) list.splice(0, list.length - this.limit);
      this.tuner.set(k, list);
    }
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
      else if (r.kind === 'ce-coll') this.addCopyEngine(r);
    }
    this.trim();
  }

  private addCopyEngine(r: NcclProfileRecord): void {
    const list = this.copyEngine.get(r.comm) ?? [];
    list.push(r);
    if (list.length > this.limit) list.splice(0, list.length - this.limit);
    this.copyEngine.set(r.comm, list);
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

  /** Takes the calls `seqs` out of the pool (those seen), in the order asked. */
  take(comm: string, func: string, seqs: number[]): (NcclColl | null)[] {
    return seqs.map((s) => {
      const c = this.find(comm, func, s);
      if (!c) return null;
      this.remove(c.id, c);
      return c;
    });
  }

  get size(): number {
    return this.byId.size;
  }
}

/** What NCCL chose for a step's calls on one rank, as counts by value (more than one value: it varied). */
export const ncclStepInfoSchema = z.object({
  /** The step's calls joined (its timed iterations'), and those the profiler saw. */
  calls: z.number().int().nonnegative(),
  seen: z.number().int().nonnegative(),
  algo: z.record(z.string(), z.number().int()),
  proto: z.record(z.string(), z.number().int()),
  nChannels: z.record(z.string(), z.number().int()),
  /**
   * Each timed iteration's span on the GPU from its kernel channels (first start to last end, µs);
   * null where no channel could be timed. Absent where the profiler saw no channel.
   */
  kernelUs: z.array(z.number().nullable()).optional(),
  /**
   * Of `seen`, the calls NCCL ran on copy engines: no kernel, no SM (profiler v6's CeColl events, NCCL
   * 2.29 and later, CTA policy zero on windows). Counted on a communicator of the step's own (absent
   * elsewhere), where `calls` are all the step's calls the profiler could see (warm-up, the timed
   * iterations run one by one, the check), `seen` those it saw, and algo/proto/nChannels count the
   * kernels among them. A call in neither ran on a symmetric kernel, which NCCL's profiler does not see
   * (the step's `kernels` names it, from NCCL's INFO lines).
   */
  copyEngine: z.number().int().nonnegative().optional(),
  /** Channels that started but whose end never came, and channels NCCL stamped with zero (NCCL #1961). */
  missingEnds: z.number().int().nonnegative(),
  zeroTimes: z.number().int().nonnegative(),
  /** The calibration's bound on where the channel slices stand on the host clock (ns). */
  clockErrorNs: z.number().nonnegative().optional(),
  /**
   * NCCL's own prediction for the first timed call (the pass-through tuner's cost table): µs per
   * "ALGO/PROTO" it allowed, and the bytes it predicted for.
   */
  predicted: z.object({ bytes: z.number(), us: z.record(z.string(), z.number()) }).optional(),
  /**
   * Where the network carried the data: the timed iterations' proxy operations, the steps they ran,
   * the bytes those moved, and the steps' time per wait (µs, summed over operations).
   */
  proxy: z
    .object({
      ops: z.number().int().nonnegative(),
      steps: z.number().int().nonnegative(),
      bytes: z.number().nonnegative(),
      waitUs: z.object({ gpu: z.number(), peer: z.number(), network: z.number(), flush: z.number() }),
    })
    .optional(),
});
export type NcclStepInfo = z.infer<typeof ncclStepInfoSchema>;

/**
 * What NCCL did with a step's calls counted on a communicator of the step's own (NcclEventPool
 * takeCalls): `calls` is how many the profiler could see; copy-engine calls are counted apart, kernels
 * by algorithm, protocol and channels.
 */
export function countedStep(taken: ReturnType<NcclEventPool['takeCalls']>, calls: number): NcclStepInfo {
  const seen = taken.copyEngine.length + taken.kernels.length;
  const info: NcclStepInfo = {
    calls: Math.max(calls, seen),
    seen,
    algo: {},
    proto: {},
    nChannels: {},
    copyEngine: taken.copyEngine.length,
    missingEnds: 0,
    zeroTimes: 0,
  };
  for (const c of taken.kernels) {
    bump(info.algo, c.algo);
    bump(info.proto, c.proto);
    bump(info.nChannels, String(c.nChannels));
  }
  return info;
}

/** A proxy operation's slice on the host clock (its steps' first start to last stop, else its own start to stop). */
export interface ProxySlice {
  iteration: number;
  channel: number;
  peer: number;
  isSend: boolean;
  steps: number;
  bytes: number;
  startNs: number;
  endNs: number;
  waitUs: Record<ProxyWait, number>;
}

const waitUsOf = (waitNs: number[]): Record<ProxyWait, number> =>
  Object.fromEntries(PROXY_WAITS.map((w, i) => [w, (waitNs[i] ?? 0) / 1e3])) as Record<ProxyWait, number>;

/** A channel kernel's slice on the host clock. */
export interface ChannelSlice {
  iteration: number;
  channel: number;
  algo: string;
  proto: string;
  startNs: number;
  endNs: number;
}

const bump = (m: Record<string, number>, k: string) => {
  m[k] = (m[k] ?? 0) + 1;
};

/** A call's span on the GPU (its channels' first start to last end), or null where none was timed. */
export function kernelSpanNs(c: NcclColl): { start: bigint; end: bigint } | null {
  const timed = c.channels.filter((ch) => ch.startGpuNs !== null && ch.endGpuNs !== null);
  if (!timed.length) return null;
  let start = timed[0].startGpuNs!;
  let end = timed[0].endGpuNs!;
  for (const ch of timed) {
    if (ch.startGpuNs! < start) start = ch.startGpuNs!;
    if (ch.endGpuNs! > end) end = ch.endGpuNs!;
  }
  return { start, end };
}

/**
 * Joins a step's calls: `calls` are what the pool held for each of the step's sequence numbers
 * (null: not seen), the last `timed` of them the timed iterations (the loop's, if any, before).
 * Slices are given for at most `maxSliceIterations` timed iterations, on the host clock by `clock`.
 */
export function joinStep(
  calls: (NcclColl | null)[],
  timed: number,
  clock: GpuClockSample | null,
  maxSliceIterations = 16,
  prediction: (c: NcclColl) => NcclTunerRecord | undefined = () => undefined,
): { info: NcclStepInfo; slices: ChannelSlice[]; proxies: ProxySlice[] } {
  const info: NcclStepInfo = { calls: calls.length, seen: 0, algo: {}, proto: {}, nChannels: {}, missingEnds: 0, zeroTimes: 0 };
  const slices: ChannelSlice[] = [];
  const proxies: ProxySlice[] = [];
  const firstTimed = calls.length - timed;
  const kernelUs: (number | null)[] = [];
  let anyChannel = false;
  calls.forEach((c, i) => {
    if (!c) return;
    info.seen++;
    bump(info.algo, c.algo);
    bump(info.proto, c.proto);
    bump(info.nChannels, String(c.nChannels));
    for (const ch of c.channels) {
      anyChannel = true;
      if (!ch.ended) info.missingEnds++;
      else if (ch.startGpuNs === null || ch.endGpuNs === null) info.zeroTimes++;
    }
    if (i < firstTimed) return;
    const tuned = info.predicted ? undefined : prediction(c);
    if (tuned) info.predicted = { bytes: tuned.bytes, us: predictionTable(tuned) };
    const span = kernelSpanNs(c);
    kernelUs.push(span ? Number(span.end - span.start) / 1e3 : null);
    const iteration = i - firstTimed;
    for (const p of c.proxyOps) {
      const proxy = (info.proxy ??= { ops: 0, steps: 0, bytes: 0, waitUs: { gpu: 0, peer: 0, network: 0, flush: 0 } });
      proxy.ops++;
      proxy.steps += p.steps;
      proxy.bytes += p.bytes;
      const w = waitUsOf(p.waitNs);
      for (const k of PROXY_WAITS) proxy.waitUs[k] += w[k];
      if (iteration >= maxSliceIterations || p.stopNs === null) continue;
      // The proxy thread stamps the host's clock itself: no calibration needed.
      const ran = p.steps > 0 && p.firstStepNs > 0 && p.lastStepNs >= p.firstStepNs;
      proxies.push({
        iteration,
        channel: p.channel,
        peer: p.peer,
        isSend: p.isSend,
        steps: p.steps,
        bytes: p.bytes,
        startNs: ran ? p.firstStepNs : p.startNs,
        endNs: ran ? p.lastStepNs : p.stopNs,
        waitUs: w,
      });
    }
    if (!clock || iteration >= maxSliceIterations) return;
    for (const ch of c.channels) {
      if (ch.startGpuNs === null || ch.endGpuNs === null) continue;
      slices.push({
        iteration,
        channel: ch.channel,
        algo: c.algo,
        proto: c.proto,
        startNs: gpuToHostNs(clock, ch.startGpuNs),
        endNs: gpuToHostNs(clock, ch.endGpuNs),
      });
    }
  });
  if (anyChannel) info.kernelUs = kernelUs;
  if (clock) info.clockErrorNs = clock.errorNs;
  return { info, slices, proxies };
}

/** A step's NCCL choices over its ranks (the record's step.nccl): the counts added up. */
export const ncclStepSummarySchema = ncclStepInfoSchema.omit({ kernelUs: true, clockErrorNs: true, predicted: true }).extend({
  /** NCCL's prediction (the lowest rank's that has one), and its time for the algorithm and protocol it chose (µs). */
  predicted: ncclStepInfoSchema.shape.predicted,
  predictedChosenUs: z.number().nullable().optional(),
  /** The median over ranks and timed iterations of a call's span on the GPU from its channels (µs); null: none timed. */
  kernelMedianUs: z.number().nullable(),
});
export type NcclStepSummary = z.infer<typeof ncclStepSummarySchema>;

const medianOf = (xs: number[]): number | null => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Sums several ranks' infos: counts add up, and the kernel spans give one median. null for none. */
export function mergeStepInfos(infos: NcclStepInfo[]): NcclStepSummary | null {
  if (!infos.length) return null;
  const out: NcclStepSummary = {
    calls: 0,
    seen: 0,
    algo: {},
    proto: {},
    nChannels: {},
    missingEnds: 0,
    zeroTimes: 0,
    kernelMedianUs: null,
  };
  for (const i of infos) {
    out.calls += i.calls;
    out.seen += i.seen;
    out.missingEnds += i.missingEnds;
    out.zeroTimes += i.zeroTimes;
    if (i.copyEngine !== undefined) out.copyEngine = (out.copyEngine ?? 0) + i.copyEngine;
    for (const f of ['algo', 'proto', 'nChannels'] as const) for (const [k, n] of Object.entries(i[f])) out[f][k] = (out[f][k] ?? 0) + n;
    if (i.proxy) {
      const p = (out.proxy ??= { ops: 0, steps: 0, bytes: 0, waitUs: { gpu: 0, peer: 0, network: 0, flush: 0 } });
      p.ops += i.proxy.ops;
      p.steps += i.proxy.steps;
      p.bytes += i.proxy.bytes;
      for (const k of PROXY_WAITS) p.waitUs[k] += i.proxy.waitUs[k];
    }
  }
  out.kernelMedianUs = medianOf(infos.flatMap((i) => (i.kernelUs ?? []).filter((x): x is number => x !== null)));
  const predicted = infos.find((i) => i.predicted)?.predicted;
  if (predicted) {
    out.predicted = predicted;
    const algo = Object.keys(out.algo);
    const proto = Object.keys(out.proto);
    out.predictedChosenUs = algo.length === 1 && proto.length === 1 ? (predicted.us[`${algo[0]}/${proto[0]}`] ?? null) : null;
  }
  return out;
}

/** One value, or "varied" with the counts (most first): "Ring", "varied (Ring×18, Tree×2)"; "" for none. */
export function describeChoice(counts: Record<string, number>): string {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (entries.length === 0) return '';
  if (entries.length === 1) return entries[0][0];
  return `varied (${entries.map(([k, n]) => `${k}×${n}`).join(', ')})`;
}

/** One value, or "varied" (describeChoice gives the counts); "-" for none. */
export function oneChoice(counts: Record<string, number>): string {
  const d = describeChoice(counts);
  return d.startsWith('varied') ? 'varied' : d || '-';
}

/** A step's choice in a few characters: "RING LL 24ch", with "varied" for what varied; null for none. */
export function shortChoice(n: Pick<NcclStepInfo, 'algo' | 'proto' | 'nChannels'> | undefined): string | null {
  return n ? `${oneChoice(n.algo)} ${oneChoice(n.proto)} ${oneChoice(n.nChannels)}ch` : null;
}
