// A pairs step as one rank runs it: every pair on a two-rank communicator of its own, joined when
// the pair's unit opens and left when it closes, each step under the pair's own timeout. A pair
// that fails or hangs is aborted and reported as this rank's result (verdict error), and the rank
// goes on with the next pair; the run's communicator is never touched, so one broken link cannot
// end the matrix. Faults the scenario injects make a pair fail the way a broken link does.
import type { P2pAction, PairAction, PlanStep } from '../shared/plan/types.js';
import type { TimelineEvent } from '../shared/run/rank/protocol.js';
import type { BackendName, NativeAddon, NativeComm, NativeOp, NativeTimes } from '../addon/native-api.js';
import { prepareP2p, type PreparedCall } from './buffers.js';
import { hostWrittenBytes, type HostMemory } from './host-memory.js';
import { checksOf, failedOutcome, type Outcome } from './outcome.js';
import { runEvents } from './step-events.js';
import { DTYPE_INFO } from '../shared/data/dtypes.js';
import { eventsInLoop, type IterationEvents } from './iteration-events.js';
import { stepNccl, type NcclProfile } from './nccl-profile.js';

/** What the rank process gives the pair runner: the addon, and the core to meet the pair's peer through. */
export interface PairHost {
  rank: number;
  backend: BackendName;
  addon: NativeAddon;
  /** The CUDA device of a rank of the run (the plan's devices, or the rank itself). */
  deviceOf(rank: number): number;
  /** Sends the pair communicator's id (made by the pair's rank 0) for the core to pass to the other rank. */
  sendPairId(step: number, id: string): void;
  /** The id the pair's rank 0 made, relayed by the core. */
  pairId(step: number): Promise<string>;
  /** A line for this rank's log. */
  log(text: string): void;
}

/** How long an aborted call may take to come back before the rank stops waiting for it. */
const ABORT_SETTLE_MS = 5_000;
/** How long the rank's end waits for the last pair's communicator to close (a ceiling). */
const CLOSE_WAIT_MS = 10_000;

type PairStep = PlanStep & { action: PairAction };

class PairFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const nowNs = () => Number(process.hrtime.bigint());
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class PairRunner {
  private comm: NativeComm | null = null;
  /** The unit's first failure: its later steps are not measured (the pair is down). */
  private failure: PairFailure | null = null;
  /**
   * The communicators this rank left, closing on a worker thread (destroyAsync) while the rank
   * copies, meets the others at the next pair's gate and joins it; the next pair's NCCL
   * measurements wait until they are gone. (A close is slow, see NcclComm::close, and frees the
   * communicator's buffers only at its end: a copy of a few ms beside it is left alone.)
   */
  private closing: Promise<void> = Promise.resolve();

  constructor(
    private readonly host: PairHost,
    private readonly memory: HostMemory | null = null,
    /** NCCL's profiler plug-in's events (nccl backend): each pair's calls are joined on its own communicator. */
    private readonly profile: NcclProfile | null = null,
    /** How timed iterations get their events on nccl (iteration-events.ts). */
    private readonly iterationEvents: IterationEvents = 'auto',
  ) {}

  /** One step of a pair's unit, on this rank; never rejects for the pair's own failure. */
  async run(step: PairStep): Promise<Outcome> {
    const a = step.action;
    // The whole step, closing barrier included, keeps within the pair's timeout.
    const deadline = Date.now() + step.timeoutMs;
    if (a.opens) {
      this.failure = null;
      await this.leave(null, deadline);
    }
    let outcome: Outcome;
    try {
      // A plain copy does not go through NCCL: it is still measured after NCCL failed on the pair.
      if (this.failure && a.measure !== 'copy')
        throw new PairFailure('CLAB_PAIR_DOWN', `not measured: the pair failed earlier (${this.failure.code})`);
      outcome = await this.measure(step, deadline);
    } catch (e) {
      outcome = this.failed(e, a.measure !== 'copy');
    }
    if (a.closes) {
      const closing = await this.leave(step, deadline);
      if (closing && !outcome.error) outcome = this.failed(closing, true);
    }
    return outcome;
  }

  /** The pair's failure as this rank's outcome; `ofThePair`: NCCL failed on it (a copy's failure is the copy's own). */
  private failed(e: unknown, ofThePair: boolean): Outcome {
    const err = e as { code?: string; message?: string };
    const failure = e instanceof PairFailure ? e : new PairFailure(err.code ?? 'CLAB_WORKER_ERROR', err.message ?? String(e));
    if (ofThePair) {
      this.failure ??= failure;
      this.comm?.abort(`rank ${this.host.rank}: ${failure.message}`);
    }
    return failedOutcome({ code: failure.code, message: failure.message });
  }

  /**
   * Leaves the pair's communicator. At the unit's close (`step`), while the pair works, both ranks
   * first meet in a barrier on it, so that neither leaves before the other has joined and received
   * (the cpu backend removes a communicator's segment once a rank leaves it). After an abort, nccl
   * tears it down with ncclCommAbort. Returns the barrier's failure, if it failed.
   */
  private async leave(step: PairStep | null, deadline: number): Promise<PairFailure | null> {
    const comm = this.comm;
    this.comm = null;
    if (!comm) return null;
    let failure: PairFailure | null = null;
    if (step && !this.failure) {
      try {
        await this.withTimeout(
          comm.enqueue(0, { op: 'barrier' }, 1),
          deadline,
          comm,
          `${step.label}: the pair's closing barrier did not finish within the pair's timeout of ${step.timeoutMs} ms on rank ${this.host.rank}`,
        );
      } catch (e) {
        const err = e as { code?: string; message?: string };
        failure = e instanceof PairFailure ? e : new PairFailure(err.code ?? 'CLAB_WORKER_ERROR', err.message ?? String(e));
        this.failure = failure;
        comm.abort(failure.message);
      }
    }
    const closed = comm
      .destroyAsync()
      .catch((e: unknown) =>
        this.host.log(`rank ${this.host.rank}: closing a pair's communicator failed: ${(e as Error).message ?? String(e)}`),
      );
    this.closing = Promise.all([this.closing, closed]).then(() => undefined);
    return failure;
  }

  /** Resolves once the communicators this rank left are closed, or after CLOSE_WAIT_MS (said in the log). */
  async closed(): Promise<void> {
    const waited = await Promise.race([this.closing.then(() => 'closed' as const), sleep(CLOSE_WAIT_MS).then(() => 'late' as const)]);
    if (waited === 'late')
      this.host.log(
        `rank ${this.host.rank}: a pair's communicator was still closing after ${CLOSE_WAIT_MS} ms; the rank ends without waiting for it`,
      );
  }

  /** Waits, within the step's deadline, for the communicators this rank left to be closed. */
  private async afterClosing(step: PairStep, deadline: number): Promise<void> {
    await this.withTimeout(
      this.closing,
      deadline,
      null,
      `${step.label}: the previous pair's communicator was still closing on rank ${this.host.rank} when the pair's timeout of ${step.timeoutMs} ms ran out`,
    );
  }

  private pairName(a: PairAction): string {
    return `${a.from}${a.both ? '⇄' : '→'}${a.to}`;
  }

  private async measure(step: PairStep, deadline: number): Promise<Outcome> {
    const a = step.action;
    const { rank } = this.host;
    if (a.measure === 'copy') return this.copy(step, deadline);
    const comm = this.comm ?? (await this.join(step, deadline));
    await this.afterClosing(step, deadline);
    if (a.fault === 'error') {
      throw new PairFailure(
        'CLAB_INJECTED_ERROR',
        `injected fault: the pair ${this.pairName(a)} fails as over a broken link (the scenario's faults list): its first operation failed on rank ${rank}`,
      );
    }
    this.memory?.boundary(); // between pairs, as between steps (host-memory.ts)
    const fillStart = nowNs();
    const calls = this.prepare(a, comm.makesData);
    const fillEnd = nowNs();
    this.memory?.wrote(hostWrittenBytes(calls));
    const op: NativeOp = calls.length === 1 ? calls[0].op : { op: 'group', ops: calls.map((c) => c.op) };
    // An injected hang: the pair's sender never hands its data over, so the receiver waits in the
    // backend (NCCL: a receive that never completes on the GPU) until the pair's timeout.
    const silent = a.fault === 'hang' && rank === a.from;
    /** How long the warm-up took, once it has finished: data moved (a pair past its timeout after that is slow, not hung). */
    let warmedUpMs: number | null = null;
    const run = async (): Promise<{ warm: NativeTimes | null; timed: NativeTimes }> => {
      if (silent) {
        await sleep(Math.max(0, deadline - Date.now()) + 1);
        throw new PairFailure(
          'CLAB_PAIR_TIMEOUT',
          `injected fault: the pair ${this.pairName(a)} hangs as over a broken link (the scenario's faults list); rank ${rank} sent nothing within its timeout of ${step.timeoutMs} ms`,
        );
      }
      const began = Date.now();
      const warm = step.warmup > 0 ? comm.enqueue(0, op, step.warmup) : null;
      warm?.then(
        () => {
          warmedUpMs = Date.now() - began;
        },
        () => undefined,
      );
      // Both ranks of the pair move the same bytes, so both time their iterations alike.
      const loop = step.iters > 1;
      const inside = loop && eventsInLoop(this.iterationEvents, a.count * DTYPE_INFO[a.dtype].bytes);
      const timed = comm.enqueue(0, op, step.iters, { loop, ...(inside ? { eventsInLoop: true } : {}) });
      const [w, t] = await Promise.all([warm, timed]);
      return { warm: w, timed: t };
    };
    const noData =
      step.warmup > 0 ? `: no data moved (not even its ${step.warmup} warm-up iteration${step.warmup === 1 ? '' : 's'} finished)` : '';
    const { warm, timed } = await this.withTimeout(
      run(),
      deadline,
      comm,
      `${step.label}: the pair did not finish within its timeout of ${step.timeoutMs} ms on rank ${rank}${noData}`,
    ).catch((e: unknown) => {
      if (!(e instanceof PairFailure) || e.code !== 'CLAB_PAIR_TIMEOUT' || warmedUpMs === null) throw e;
      throw new PairFailure(
        'CLAB_PAIR_SLOW',
        `${step.label}: the pair moved data (its ${step.warmup} warm-up iteration${step.warmup === 1 ? '' : 's'} finished in ${warmedUpMs} ms) but its ${step.iters} timed iteration${step.iters === 1 ? '' : 's'} did not finish within its timeout of ${step.timeoutMs} ms on rank ${rank}: too slow for the timeout, not hung`,
      );
    });
    const base = { rank, stream: 0, step: step.index, bytes: a.count * DTYPE_INFO[a.dtype].bytes };
    const nccl = await this.ncclJoin(step, op, timed, warm, base.bytes);
    const events: TimelineEvent[] = [
      { ...base, name: `${step.label} (fill)`, phase: 'fill', startNs: fillStart, endNs: fillEnd },
      ...runEvents({ ...base, name: step.label }, warm, 'warmup'),
      ...runEvents({ ...base, name: step.label }, timed, 'timed'),
      ...(nccl?.events ?? []),
    ];
    return {
      ...(nccl ? { nccl: nccl.info } : {}),
      checks: checksOf(calls),
      timed,
      events,
      note: null,
      inputs: calls.map((c) => c.inputPreview),
    };
  }

  /**
   * What NCCL chose for the pair's calls, joined on the pair's own communicator (this rank is its
   * rank 0 or 1 of 2, and the op names its peer so), and their channels as events; null without
   * the profiler or where nothing joined.
   */
  private async ncclJoin(step: PairStep, op: NativeOp, timed: NativeTimes, warm: NativeTimes | null, bytes: number) {
    if (!this.profile) return null;
    const pairComm = this.profile.joinedAs(this.host.rank === step.action.from ? 0 : 1, 2);
    if (!pairComm) return null;
    this.profile.use(pairComm);
    try {
      return await stepNccl(this.profile, op, timed, [warm], {
        rank: this.host.rank,
        stream: 0,
        step: step.index,
        label: step.label,
        bytes,
        slices: true,
      });
    } finally {
      this.profile.use();
    }
  }

  /** Joins the pair's communicator: the pair's rank 0 (`from`) makes the id, the core passes it on. */
  private async join(step: PairStep, deadline: number): Promise<NativeComm> {
    const a = step.action;
    const { rank, backend, addon } = this.host;
    const pairRank = rank === a.from ? 0 : 1;
    const joining = (async () => {
      let id: string;
      if (pairRank === 0) {
        id = addon.createUniqueId({ backend, world: 2 });
        this.host.sendPairId(step.index, id);
      } else {
        id = await this.host.pairId(step.index);
      }
      return addon.commInit({ backend, id, rank: pairRank, world: 2, device: this.host.deviceOf(rank), commStreams: 1 });
    })();
    const comm = await this.withTimeout(
      joining,
      deadline,
      null,
      `${step.label}: the pair's communicator did not come up within the pair's timeout of ${step.timeoutMs} ms on rank ${rank}`,
    );
    this.comm = comm;
    return comm;
  }

  /**
   * Waits for `work` until `deadline`; past it, aborts the pair's communicator (its pending calls
   * come back with CLAB_ABORTED; nccl ends a hung kernel with ncclCommAbort) and fails with
   * CLAB_PAIR_TIMEOUT. A join that never returns cannot be aborted: it is left behind.
   */
  private async withTimeout<T>(work: Promise<T>, deadline: number, comm: NativeComm | null, message: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), Math.max(0, deadline - Date.now()));
    });
    work.catch(() => undefined);
    try {
      const first = await Promise.race([work, expired]);
      if (first !== 'expired') return first as T;
    } finally {
      clearTimeout(timer);
    }
    if (comm) {
      comm.abort(message);
      await Promise.race([work.catch(() => undefined), sleep(ABORT_SETTLE_MS)]);
    }
    throw new PairFailure('CLAB_PAIR_TIMEOUT', message);
  }

  /** The pair's calls on this rank, with peers numbered as on the pair's communicator (from: 0, to: 1). */
  private prepare(a: PairAction, backendMakesData: boolean): PreparedCall[] {
    const { rank } = this.host;
    const other = rank === a.from ? a.to : a.from;
    const pairRankOf = (r: number) => (r === a.from ? 0 : 1);
    const p2p = (from: number, to: number): P2pAction => ({ kind: 'p2p', from, to, dtype: a.dtype, count: a.count, data: a.data });
    const actions = a.both ? [p2p(rank, other), p2p(other, rank)] : [p2p(a.from, a.to)];
    return actions.map((x) => {
      const call = prepareP2p(x, rank, { backendMakesData });
      const op = call.op as Extract<NativeOp, { op: 'send' | 'recv' }>;
      return { ...call, op: { ...op, peer: pairRankOf(op.peer) } };
    });
  }

  /** A plain copy from the sender's device to the receiver's, outside NCCL (the sender alone). */
  private async copy(step: PairStep, deadline: number): Promise<Outcome> {
    const a = step.action;
    const { rank, backend, addon } = this.host;
    if (a.fault)
      throw new PairFailure('CLAB_PAIR_DOWN', `not measured: the link ${a.from}→${a.to} is broken on purpose (the scenario's faults list)`);
    const bytes = a.count * DTYPE_INFO[a.dtype].bytes;
    const copied = addon.peerCopy({
      backend,
      rank,
      device: this.host.deviceOf(a.from),
      peer: this.host.deviceOf(a.to),
      bytes,
      warmup: step.warmup,
      iters: step.iters,
    });
    // A copy engine cannot be told to stop: past the timeout the rank reports and goes on.
    const r = await this.withTimeout(copied, deadline, null, `${step.label}: the copy did not finish within ${step.timeoutMs} ms`);
    const base = { rank, stream: 0, step: step.index, bytes, name: step.label };
    return {
      checks: () => [
        {
          check: { checked: r.checked, wrong: r.wrong, mismatches: r.wrong ? [{ index: 0, expected: '0x5a', actual: 'other bytes' }] : [] },
          preview: null,
        },
      ],
      timed: r,
      events: r.startNs.map((s, i) => ({ ...base, phase: 'timed' as const, startNs: s, endNs: r.endNs[i] })),
      note: r.how,
    };
  }
}
