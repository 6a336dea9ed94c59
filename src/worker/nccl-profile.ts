// The rank's side of the lab's NCCL profiler plug-in: pointing NCCL at it, reading what it kept,
// finding this rank's communicator among its inits, placing the GPU's clock, and joining a step's
// calls (shared/run/nccl/nccl-step-join.ts). Whatever fails here, the run goes on without it and the
// rank's log says so once.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { NativeAddon, NativeOp, NcclProfilerRead, NativeTimes } from '../addon/native-api.js';
import type { TimelineEvent } from '../shared/run/rank/protocol.js';
import type { GpuClockSample } from '../shared/run/nccl/gpu-clock.js';
import { insideNcclChoice } from '../shared/run/nccl/inside-nccl.js';
import { NcclEventPool } from '../shared/run/nccl/nccl-event-pool.js';
import { NCCL_CALL_NAME, communicatorOf, NCCL_FUNC, p2pFunc, joinedCommunicators, stepTag } from '../shared/run/nccl/nccl-records.js';
import type { NcclStepInfo } from '../shared/run/nccl/nccl-step-info.js';
import { countedStep, joinStep, type ChannelSlice, type ProxySlice } from '../shared/run/nccl/nccl-step-join.js';

export const PROFILER_LIBRARY = 'clab_profiler.so';
/** How long a step waits for NCCL's proxy thread to record its last channels' ends. */
const SETTLE_MS = 50;

/**
 * Names the plug-in beside the addon in NCCL_PROFILER_PLUGIN where the scenario asks to see inside
 * NCCL (`asked`, the plan's insideNccl) or CLAB_NCCL_PROFILER=1 forces it, and neither
 * CLAB_NCCL_PROFILER=0 nor the user's own NCCL_PROFILER_PLUGIN keeps it out: its path, or null with
 * the rank's log line saying why not; and, unless the user set one, in NCCL_TUNER_PLUGIN (the same
 * library's tuner only reads; not with CLAB_NCCL_TUNER=0). Read by NCCL at its first communicator.
 */
export function chooseProfiler(
  addonPath: string,
  asked: boolean,
  env: NodeJS.ProcessEnv = process.env,
): { library: string | null; why: string | null } {
  const choice = insideNcclChoice(asked, env.CLAB_NCCL_PROFILER);
  if (!choice.load) return { library: null, why: choice.why };
  const notUsed = "the lab's NCCL profiler plug-in is not used";
  if (env.NCCL_PROFILER_PLUGIN !== undefined)
    return {
      library: null,
      why: `${notUsed}: NCCL_PROFILER_PLUGIN is set (${env.NCCL_PROFILER_PLUGIN}): that plug-in is NCCL's, not the lab's`,
    };
  const library = join(dirname(addonPath), PROFILER_LIBRARY);
  if (!existsSync(library)) return { library: null, why: `${notUsed}: ${library} is missing (build it with npm run build:native)` };
  env.NCCL_PROFILER_PLUGIN = library;
  if (env.CLAB_NCCL_TUNER !== '0') env.NCCL_TUNER_PLUGIN ??= library;
  return { library, why: null };
}

export class NcclProfile {
  private readonly pool = new NcclEventPool();
  private clockFailed = false;
  /** The communicator whose calls steps are joined with now: the run's, or a compare variant's. */
  private active: string;
  /** The communicator this rank joined last, by the plug-in's init records. */
  private joinedLast: string;

  private constructor(
    private readonly addon: NativeAddon,
    private readonly library: string,
    readonly comm: string,
    private readonly device: number,
    private readonly rank: number,
    private readonly world: number,
    private readonly log: (text: string) => void,
    /** The communicators split off the run's at join (commInit's `comms` that the loaded NCCL could make), in order. */
    private readonly splits: string[] = [],
  ) {
    this.active = comm;
    this.joinedLast = comm;
  }

  /** The communicator this rank joined last as rank R of W ("R/W"), by the plug-in's init records: a pair's is 0 or 1 of 2. */
  private joinedBy = new Map<string, string>();
  private saidUnloaded = false;

  /** The hash of the communicator this rank joined last as rank `rank` of `world` (a pair's), or null. */
  joinedAs(rank: number, world: number): string | null {
    this.read();
    const comm = this.joinedBy.get(`${rank}/${world}`) ?? null;
    if (comm === null && !this.saidUnloaded) {
      this.saidUnloaded = true;
      this.log(
        "NCCL did not load the profiler plug-in for a pair's communicator (it needs NCCL 2.28 or later, ncclProfiler_v5; set NCCL_DEBUG=INFO to see why): no algorithm, protocol or channels",
      );
    }
    return comm;
  }

  /** The hash of the communicator this rank joined last (read after joining a variant's). */
  lastJoined(): string {
    this.read();
    return this.joinedLast;
  }

  /** Joins steps with the calls of communicator `comm` from now on (the run's by default). */
  use(comm: string = this.comm): void {
    this.active = comm;
  }

  /**
   * After the communicator is joined: the profile of it, or null where NCCL did not load the
   * plug-in or it cannot be read (logged once, with why). For a plan of pairs only (`runWide`
   * false: no run-wide communicator), a profile that joins each pair's calls on the pair's own
   * communicator (joinedAs). `splits`: how many communicators the rank split off the run's as it
   * joined (their inits follow the run's).
   */
  static attach(
    addon: NativeAddon,
    library: string,
    rank: number,
    world: number,
    device: number,
    log: (text: string) => void,
    runWide = true,
    splits = 0,
  ): NcclProfile | null {
    try {
      const read = addon.ncclProfilerRead({ library });
      const joined = runWide ? joinedCommunicators(read.records, rank, world, splits) : { run: '', splits: [] };
      if (joined === null) {
        log(
          'NCCL did not load the profiler plug-in (it needs NCCL 2.28 or later, ncclProfiler_v5; set NCCL_DEBUG=INFO to see why): no algorithm, protocol or channels',
        );
        return null;
      }
      const { run: comm } = joined;
      const profile = new NcclProfile(addon, library, comm, device, rank, world, log, joined.splits);
      profile.take(read);
      if (runWide)
        log(
          `NCCL's profiler plug-in is loaded (interface v${read.interface}, communicator ${comm}${joined.splits.length ? `, ${joined.splits.length} split off it: ${joined.splits.join(', ')}` : ''}): algorithm, protocol and channels per step`,
        );
      return profile;
    } catch (e) {
      log(`the NCCL profiler plug-in cannot be read: ${(e as Error).message}`);
      return null;
    }
  }

  private read(): void {
    this.take(this.addon.ncclProfilerRead({ library: this.library }));
  }

  /** Records the plug-in lost to its full ring so far (its count only grows), and how many of them the log has told. */
  private lost = 0;
  private lostTold = 0;

  /** Keeps what one read of the plug-in gave: its calls, the tuner's tables, the communicators joined, its count of records lost. */
  private take({ records, tuner, dropped }: Pick<NcclProfilerRead, 'records' | 'tuner' | 'dropped'>): void {
    this.lost = Math.max(this.lost, dropped);
    this.joinedLast = communicatorOf(records, this.rank, this.world) ?? this.joinedLast;
    for (const r of records) if (r.kind === 'comm') this.joinedBy.set(`${r.rank}/${r.peer}`, r.comm);
    this.pool.add(records);
    this.pool.addTuner(tuner);
  }

  private clock(): GpuClockSample | null {
    if (this.clockFailed) return null;
    try {
      return this.addon.gpuClock({ device: this.device, rank: this.rank });
    } catch (e) {
      this.clockFailed = true;
      this.log(`the GPU's clock cannot be placed against the host's, so NCCL's channels are not on the timeline: ${(e as Error).message}`);
      return null;
    }
  }

  /**
   * How NCCL ran a step's calls on communicator `index` split off the run's (commInit's `comms`,
   * 1-based), where calls are not numbered: every call of the op's function and size there since the
   * last step (countedStep). `calls`: how many the profiler could see. null where the op is not one
   * collective, or the communicator is not known.
   */
  countOn(index: number, op: NativeOp, calls: number): NcclStepInfo | null {
    const comm = this.splits[index - 1];
    const func = NCCL_CALL_NAME[op.op];
    if (comm === undefined || func === undefined || !('count' in op)) return null;
    this.read();
    return countedStep(this.pool.takeCalls(comm, func, op.count), calls);
  }

  /**
   * Joins a step's calls of NCCL function `func`: `timed` is the enqueue whose iterations are timed
   * (its loop's calls first), `others` the step's other enqueues (warm-up, check), whose calls are
   * only taken out of the pool. Waits a little for channel ends the proxy thread has yet to record.
   */
  async join(
    func: string,
    timed: NativeTimes,
    others: (NativeTimes | null)[],
    slices: boolean,
    label = func,
    /** The step's tag (stepTag): through profiler v7 its calls carry it, and a call that names another step is not this one's. */
    tag?: number,
  ): Promise<{ info: NcclStepInfo; slices: ChannelSlice[]; proxies: ProxySlice[] } | null> {
    const seqs = timed.ncclSeq;
    if (!seqs?.length) return null;
    // The loop's calls (first) are issued with the plug-ins paused (native NcclComm::timed): only
    // the timed iterations' calls are seen, and awaited with their channels.
    const iterations = seqs.slice(seqs.length - timed.startNs.length);
    const comm = this.active;
    const settled = () => this.pool.complete(comm, func, iterations);
    this.read();
    const start = performance.now();
    while (!settled() && performance.now() - start < SETTLE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      this.read();
    }
    if (process.env.CLAB_TRACE)
      process.stderr.write(
        `[trace] rank ${this.rank} nccl join ${func}: waited ${(performance.now() - start).toFixed(1)} ms, ${settled() ? 'settled' : 'NOT settled'}\n`,
      );
    for (const o of others) if (o?.ncclSeq) this.pool.take(comm, func, o.ncclSeq, tag);
    const calls = this.pool.take(comm, func, iterations, tag);
    const joined = joinStep(calls, iterations.length, slices ? this.clock() : null, 16, (c) => this.pool.prediction(c), tag);
    if (this.lost > this.lostTold) {
      // The ring is read between steps: one step's records (a start and the GPU's end per
      // channel and call) can outgrow it, and the newest are lost.
      const { seen, missingEnds } = joined.info;
      const n = (k: number, what: string) => `${k} ${what}${k === 1 ? '' : 's'}`;
      this.log(
        `${label}: NCCL's profiler plug-in lost ${n(this.lost - this.lostTold, 'record')} to its full ring while this step ran. ` +
          `Of its ${n(iterations.length, 'timed call')}, ${seen} ${seen === 1 ? 'was' : 'were'} seen (${n(missingEnds, 'channel')} without an end), and what NCCL chose is said for those alone. ` +
          (seen > 0
            ? `At most about ${n(seen, 'timed iteration')} ${seen === 1 ? 'keeps' : 'keep'} every call whole.`
            : 'Fewer timed iterations keep every call whole.'),
      );
      this.lostTold = this.lost;
    }
    return joined;
  }
}

/** The function NCCL's events name an op's calls by: a send or recv by direction and peer, a group by its first send or recv. */
export function ncclFuncOf(op: NativeOp): string | undefined {
  // NCCL launches a group as one kernel; the addon numbers its first send or receive.
  const lead = op.op === 'group' ? (op.ops.find((o) => o.op === 'send' || o.op === 'recv') ?? op) : op;
  if (lead.op === 'send') return p2pFunc('Send', lead.peer);
  if (lead.op === 'recv') return p2pFunc('Recv', lead.peer);
  return NCCL_FUNC[lead.op];
}

/**
 * What NCCL chose for a step's calls (joined by `profile` on its active communicator), and its
 * channels' kernels and proxy operations as timeline events on the step's stream (`slices`: false
 * for none, as inside compare blocks). null where the op has no NCCL function or nothing joined.
 */
export async function stepNccl(
  profile: NcclProfile,
  op: NativeOp,
  timed: NativeTimes,
  others: (NativeTimes | null)[],
  at: { rank: number; stream: number; step: number; label: string; bytes: number; slices: boolean },
): Promise<{ info: NcclStepInfo; events: TimelineEvent[] } | null> {
  const func = ncclFuncOf(op);
  if (!func) return null;
  const joined = await profile.join(func, timed, others, at.slices, at.label, stepTag(at.step));
  if (!joined) return null;
  const base = { rank: at.rank, stream: at.stream, step: at.step };
  const events: TimelineEvent[] = joined.slices.map((s) => ({
    ...base,
    name: `${at.label} ch ${s.channel}`,
    phase: 'channel',
    startNs: s.startNs,
    endNs: s.endNs,
    bytes: at.bytes,
    channel: { id: s.channel, algo: s.algo, proto: s.proto, iteration: s.iteration },
  }));
  if (at.slices)
    for (const p of joined.proxies)
      events.push({
        ...base,
        name: `${at.label} proxy ch ${p.channel} ${p.isSend ? `send to ${p.peer}` : `recv from ${p.peer}`}`,
        phase: 'proxy',
        startNs: p.startNs,
        endNs: p.endNs,
        bytes: p.bytes,
        proxy: {
          channel: p.channel,
          peer: p.peer,
          send: p.isSend,
          steps: p.steps,
          bytes: p.bytes,
          iteration: p.iteration,
          waitUs: p.waitUs,
        },
      });
  return { info: joined.info, events };
}
