// Runs a rank's whole plan against the backend, with no round trip to the core per operation:
// every step's runs (warm-up, timed, check) are enqueued at once, in plan order, so all ranks
// issue communication in the same order even when steps are async.
import { actionBytes } from '../shared/run/record/aggregate.js';
import { gpuRefusal } from '../shared/ops/gpu-support.js';
import type { FlightEntry } from '../shared/run/rank/flight.js';
import { rankStep } from '../shared/plan/per-rank.js';
import type { Plan, PlanStep } from '../shared/plan/types.js';
import type { RankStepResult, TimelineEvent } from '../shared/run/rank/protocol.js';
import { STREAM_PHASES } from '../shared/run/rank/timeline-event.js';
import { stepPreparer, type PreparedCall } from './buffers.js';
import type { NativeComm, NativeOp, NativeTimes } from '../addon/native-api.js';
import { runObjectCollective } from './objects.js';
import { FlightRecorder } from './flight-recorder.js';
import { hostEvent, runEvents } from './step-events.js';
import { durationsUs, stepResult } from './step-result.js';
import { PairRunner, type PairHost } from './pairs.js';
import { checksOf, failedOutcome, type Outcome } from './outcome.js';
import { stepRefusal } from './refusals.js';
import { HostMemory, hostWrittenBytes } from './host-memory.js';
import { stepNccl, type NcclProfile } from './nccl-profile.js';
import { stepTag } from '../shared/run/nccl/nccl-records.js';
import { VariantComms } from './variant-comms.js';
import { eventsInLoop, iterationEventsChoice } from './iteration-events.js';
import { gemmFollows } from './gemm-follows.js';
import { aheadRule, settled } from './steps-ahead.js';

export interface ExecutorHost {
  rank: number;
  /** The run's communicator; null where the plan has only pairs steps (each pair has its own). */
  comm: NativeComm | null;
  stepBegin(step: PlanStep): void;
  /** Awaited before each step this rank runs, before stepBegin (step mode waits there for the learner). */
  beforeStep?(step: PlanStep): Promise<void>;
  stepEnd(result: RankStepResult, events: TimelineEvent[]): void;
  /** A communication call this rank is about to enter (the flight recorder's entry). */
  entered?(entry: FlightEntry): void;
  /** Pairs steps: meeting every other rank before a pair starts, and the pair's own communicator. */
  pairs?: PairHost & { gate(step: number): Promise<void> };
  /** When large host buffers are given back (host-memory.ts); one of its own by default. */
  memory?: HostMemory;
  /** nccl with the lab's profiler plug-in loaded: what NCCL chose for each step's calls. */
  ncclProfile?: NcclProfile | null;
}

const nowNs = () => Number(process.hrtime.bigint());
/** Steps that only enqueue work on their stream (see run()). */
const CHAINABLE = new Set<PlanStep['action']['kind']>(['collective', 'p2p', 'group', 'compute', 'barrier']);
/** The one native op for a step's calls (a group when there are several), on the step's communicator, its buffers windows where it says. */
const nativeOp = (calls: PreparedCall[], step: PlanStep): NativeOp => {
  const op: NativeOp = calls.length === 1 ? calls[0].op : { op: 'group', ops: calls.map((c) => c.op) };
  return {
    ...op,
    ...(step.comm !== undefined ? { comm: step.comm } : {}),
    ...(step.registration === 'window' ? { window: true } : {}),
  };
};

export class PlanExecutor {
  private pending = new Map<number, { asyncId: string | null; done: Promise<void> }>();
  private blockStart = new Map<string, number>();
  private deferred: [PlanStep, Outcome][] = [];
  /** Buffers made ahead, at a compare block's start, so that making them is not part of the block's time. */
  private prepared = new Map<number, { sets: PreparedCall[][]; fill: TimelineEvent }>();

  private readonly recorder: FlightRecorder | null;
  private pairs: PairRunner | null = null;
  private readonly variants: VariantComms | null;
  /** A compare variant's own communicator while its block runs (variant-comms.ts). */
  private variantComm: NativeComm | null = null;
  readonly memory: HostMemory;
  /** How timed iterations get their events on nccl (iteration-events.ts); a bad CLAB_ITERATION_EVENTS stops the rank at its start. */
  private readonly iterationEvents = iterationEventsChoice(process.env.CLAB_ITERATION_EVENTS);
  /** The step still running while the next one is enqueued (runsAhead). */
  private ahead: { step: number; stream: number; done: Promise<void> } | null = null;
  private readonly runsAhead: (step: PlanStep, world: number) => boolean;

  constructor(
    private readonly plan: Plan,
    private readonly host: ExecutorHost,
  ) {
    this.recorder = host.comm && new FlightRecorder(host.comm, (entry) => host.entered?.(entry));
    this.memory = host.memory ?? new HostMemory();
    this.runsAhead = aheadRule(host.comm, host.ncclProfile ?? null);
    this.variants = host.pairs ? new VariantComms(plan, host.pairs, host.ncclProfile ?? null) : null;
  }

  /** The run's communicator, for every step but a pair's (the plan has one whenever such a step exists). */
  private get comm(): NativeComm {
    if (this.variantComm) return this.variantComm;
    if (!this.host.comm) throw new Error('this rank has no run-wide communicator: the plan has only pairs steps');
    return this.host.comm;
  }

  private get flight(): FlightRecorder {
    if (!this.recorder) throw new Error('this rank has no run-wide communicator: the plan has only pairs steps');
    return this.recorder;
  }

  async run(): Promise<void> {
    // Ranks start seconds apart at worst; lining them up keeps start-up skew out of the first step's time.
    // Without a run-wide communicator (only pairs), the pairs' gates line the ranks up.
    if (this.host.comm) await this.flight.enqueue(null, 0, { op: 'barrier' }, 1);
    // Inside a compare block, sync steps on one stream are enqueued back to back, as a GPU program
    // issues them: the stream keeps their order, and a host round trip between them (the previous
    // step's end seen, the next one enqueued) would stand in the block's time as a gap. They are
    // awaited before a step on another stream, a wait, or the block's end.
    let chained: { stream: number; done: Promise<void>[] } | null = null;
    const flush = async () => {
      await this.drainAhead(); // a step run ahead (runsAhead) first
      const c = chained;
      chained = null;
      if (c) for (const d of c.done) await d;
    };
    for (const [i, planStep] of this.plan.steps.entries()) {
      if (planStep.action.kind === 'block-begin') {
        await flush();
        await this.enterVariant(planStep);
        await this.prepareBlock(i);
      }
      // Pairs run one at a time: every rank, in the pair or not, meets the others before one starts.
      if (planStep.action.kind === 'pair' && planStep.action.opens) {
        await flush();
        await this.waitFor(null);
        if (!this.host.pairs) throw new Error(`step ${planStep.index}: this rank process cannot run pairs`);
        await this.host.pairs.gate(planStep.index);
      }
      // This rank's own version of the step (a deliberate mistake may give it another action).
      const step = rankStep(planStep, this.host.rank);
      if (!step) continue;
      const chainable = step.origin.kind === 'compare' && !step.async && CHAINABLE.has(step.action.kind);
      if (chained && !(chainable && chained.stream === step.stream)) await flush();
      // Not while the learner steps, nor beside a variant's comm, async steps or another stream's step; memory goes back with none in flight.
      const ahead = !this.host.beforeStep && !this.variantComm && !this.pending.size && this.runsAhead(step, this.plan.world);
      if (!ahead || this.memory.due() || this.ahead?.stream !== step.stream) await this.drainAhead();
      await this.host.beforeStep?.(step);
      const before = ahead ? this.ahead : null;
      // Run ahead, a step begins (for the core and the flight recorder) once the one before it ended.
      if (before) this.flight.holdUntil(before.done.then(() => this.host.stepBegin(step)));
      else this.host.stepBegin(step);
      const done = this.runStep(step, before?.done);
      if (ahead) {
        done.catch(() => undefined); // awaited by drainAhead(); the one before it now
        this.ahead = { step: step.index, stream: step.stream, done };
        if (before) await settled(before);
      } else if (step.async) {
        this.pending.set(step.index, { asyncId: step.asyncId, done });
        done.catch(() => undefined);
      } else if (chainable) {
        done.catch(() => undefined); // awaited by flush()
        chained ??= { stream: step.stream, done: [] };
        chained.done.push(done);
      } else {
        await done;
      }
    }
    await flush();
    await this.waitFor(null);
    await this.pairs?.closed();
  }

  /** Waits for the step running ahead, if one is. */
  private async drainAhead(): Promise<void> {
    const a = this.ahead;
    this.ahead = null;
    if (a) await settled(a);
  }

  /** A variant that sets NCCL_ALGO/NCCL_PROTO runs its block on a communicator of its own. */
  private async enterVariant(step: PlanStep): Promise<void> {
    const comm = (await this.variants?.enter(step)) ?? null;
    if (!comm) return;
    this.variantComm = comm;
    this.flight.use(comm);
  }

  private leaveVariant(): void {
    if (!this.variantComm) return;
    this.variantComm = null;
    this.flight.use(this.comm);
    this.variants?.leave();
  }

  private async waitFor(asyncId: string | null): Promise<void> {
    const waiting = [...this.pending].filter(([, p]) => asyncId === null || p.asyncId === asyncId);
    for (const [index, p] of waiting) {
      this.pending.delete(index);
      await p.done;
    }
  }

  private async runStep(step: PlanStep, after?: Promise<void>): Promise<void> {
    const outcome = await this.execute(step);
    await after?.catch(() => undefined); // the step run ahead of this one (runsAhead) reports first
    if (step.origin.kind === 'compare' && step.action.kind !== 'block-end') this.deferred.push([step, outcome]);
    else this.report(step, outcome);
  }

  private report(step: PlanStep, outcome: Outcome): void {
    const verifyStart = nowNs();
    const checks = outcome.checks();
    const events = checks.length ? [...outcome.events, hostEvent(this.host.rank, step, 'verify', verifyStart, nowNs())] : outcome.events;
    this.host.stepEnd(stepResult(step, this.host.rank, outcome, checks), events);
  }

  /** Makes a step's buffers (a second set for the check run when the op eats its input), timed as a fill event. */
  private makeBuffers(step: PlanStep, prepare: () => PreparedCall[]): { sets: PreparedCall[][]; fill: TimelineEvent } {
    // The host memory earlier steps wrote goes back here, between steps, not while a loop is
    // issued: never while an async step may still be issuing its own.
    if (this.pending.size === 0 && !this.ahead) this.memory.boundary();
    const start = nowNs();
    const calls = prepare();
    const sets = this.needsFreshCheck(step, calls) ? [calls, prepare()] : [calls];
    this.memory.wrote(hostWrittenBytes(sets.flat()));
    return { sets, fill: hostEvent(this.host.rank, step, 'fill', start, nowNs()) };
  }

  private events(step: PlanStep, times: NativeTimes | null, phase: TimelineEvent['phase'], bytes: number): TimelineEvent[] {
    return runEvents({ rank: this.host.rank, stream: step.stream, step: step.index, name: step.label, bytes }, times, phase);
  }

  /** Decided the same way on every rank (never from this rank's output), or ranks would disagree on the number of calls. */
  private needsFreshCheck(step: PlanStep, calls: PreparedCall[]): boolean {
    return calls.some((c) => c.consumesInput) && step.warmup + step.iters > 1;
  }

  /**
   * Makes the buffers of every step of the compare block that starts at plan step `begin` and has
   * the backend take their input in (prestage), so that neither is part of the block's time.
   */
  private prepareBlock(begin: number): Promise<unknown> {
    const marker = this.plan.steps[begin].action;
    const staging: Promise<unknown>[] = [];
    if (marker.kind !== 'block-begin') return Promise.resolve();
    for (const planStep of this.plan.steps.slice(begin + 1)) {
      const a = planStep.action;
      if (a.kind === 'block-end' && a.compare === marker.compare && a.variant === marker.variant && a.repeat === marker.repeat) break;
      const step = rankStep(planStep, this.host.rank);
      const prepare = step && stepPreparer(step, this.host.rank, this.plan.world, this.host.comm?.makesData ?? false);
      if (!step || !prepare) continue;
      // A step every rank refuses (refusals.ts) calls nothing of NCCL's, not even to stage its data.
      if (stepRefusal(step, this.plan, this.comm)) continue;
      const made = this.makeBuffers(step, prepare);
      this.prepared.set(step.index, made);
      for (const set of made.sets) staging.push(this.comm.prestage(step.stream, nativeOp(set, step)));
    }
    return Promise.all(staging);
  }

  /** Enqueues warm-up, timed and (when the op eats its input) a fresh check run, all at once. */
  private async timedCalls(step: PlanStep, prepare: () => PreparedCall[]): Promise<Outcome> {
    const { comm } = this;
    const made = this.prepared.get(step.index) ?? this.makeBuffers(step, prepare);
    this.prepared.delete(step.index);
    const calls = made.sets[0];
    const op = nativeOp(calls, step);
    const refusal = gpuRefusal(op, comm.computeCapability, `GPU ${comm.device} (bus ${comm.busId})`);
    if (refusal) throw Object.assign(new Error(refusal), { code: 'CLAB_UNSUPPORTED' });
    const refused = stepRefusal(step, this.plan, comm);
    if (refused) return failedOutcome({ code: 'CLAB_UNSUPPORTED', message: refused }, [made.fill]);
    const graph = step.launch === 'graph';
    const needsFreshCheck = this.needsFreshCheck(step, calls);
    const checkCalls = needsFreshCheck ? made.sets[1] : calls;
    const checkOp = nativeOp(checkCalls, step);
    const enqueue = this.flight.enqueue.bind(this.flight, step.index, step.stream);
    // The step's tag on its NCCL calls (NCCL 2.31 hands it to the profiler plug-in with their events,
    // which then name the step: shared/run/nccl/nccl-step-join.ts).
    const tag = stepTag(step.index);
    // No one reads the warm-up's output, nor the timed run's where a fresh run is checked (EnqueueOptions.output).
    const warm = step.warmup > 0 ? enqueue(op, step.warmup, { tag, output: false }) : null;
    const output = !needsFreshCheck;
    // Outside compare blocks (whose time is the span of their ops as they overlap), nccl also runs
    // the timed iterations as one loop timed as a whole, which bandwidth comes from (see loopUs);
    // graph-launched, that loop is a CUDA graph's replay, even of one iteration.
    const bytes = actionBytes(step.action, this.plan.world);
    const loop = step.iters > 1 && step.origin.kind !== 'compare';
    const follows = !needsFreshCheck && gemmFollows(this.plan, step, this.host.rank) ? { gemmFollows: true } : {};
    const inside = loop && eventsInLoop(this.iterationEvents, bytes) ? { eventsInLoop: true } : {};
    const timed = enqueue(op, step.iters, graph ? { launch: 'graph', tag, output } : { loop, tag, output, ...inside, ...follows });
    const check = needsFreshCheck ? enqueue(checkOp, 1, { tag }) : null;
    let warmT: NativeTimes | null, timedT: NativeTimes, checkT: NativeTimes | null;
    try {
      [warmT, timedT, checkT] = await Promise.all([warm, timed, check]);
    } catch (e) {
      // Refused alike by every rank of the op as it lined up (a copy engine between GPUs without
      // peer access): the step fails, the communicator and the run go on.
      const { code, message } = e as { code?: string; message: string };
      if (code !== 'CLAB_UNSUPPORTED') throw e;
      return failedOutcome({ code, message }, [made.fill]);
    }
    const nccl = await this.ncclJoin(step, op, timedT, [warmT, checkT], bytes);
    return {
      ...(nccl ? { nccl: nccl.info } : {}),
      checks: checksOf(checkCalls),
      timed: timedT,
      events: [
        made.fill,
        ...this.events(step, warmT, 'warmup', bytes),
        ...this.events(step, timedT, 'timed', bytes),
        ...this.events(step, checkT, 'check', bytes),
        ...(nccl?.events ?? []),
      ],
      note: null,
      inputs: calls.map((c) => c.inputPreview),
    };
  }

  /**
   * What NCCL chose for a single collective's calls, and its channels' kernels as slices on the
   * step's stream (not inside compare blocks, whose view lays out streams only).
   */
  private async ncclJoin(step: PlanStep, op: NativeOp, timed: NativeTimes, others: (NativeTimes | null)[], bytes: number) {
    if (!this.host.ncclProfile) return null;
    if (step.comm !== undefined) {
      // Not numbered there: every call of the step's is counted, those of the loop excepted (issued
      // with the profiler paused).
      const calls = others.reduce((n, t) => n + (t?.startNs.length ?? 0), timed.startNs.length);
      const info = this.host.ncclProfile.countOn(step.comm, op, calls);
      return info ? { info, events: [] } : null;
    }
    return stepNccl(this.host.ncclProfile, op, timed, others, {
      rank: this.host.rank,
      stream: step.stream,
      step: step.index,
      label: step.label,
      bytes,
      slices: step.origin.kind !== 'compare',
    });
  }

  private async execute(step: PlanStep): Promise<Outcome> {
    const { rank } = this.host;
    const world = this.plan.world;
    const a = step.action;
    const none: Outcome = { checks: () => [], timed: null, events: [], note: null };
    const prepare = stepPreparer(step, this.host.rank, this.plan.world, this.host.comm?.makesData ?? false);
    if (prepare) return this.timedCalls(step, prepare);
    switch (a.kind) {
      case 'collective':
      case 'p2p':
      case 'group':
        throw new Error(`step ${step.index}: no buffers were made for ${a.kind}`); // stepPreparer() covers these
      case 'object':
        return runObjectCollective(
          step,
          a,
          { enqueue: (stream, op, repeat) => this.flight.enqueue(step.index, stream, op, repeat) },
          rank,
          world,
        );
      case 'barrier': {
        const t = await this.flight.enqueue(step.index, step.stream, { op: 'barrier' }, step.iters);
        return { ...none, timed: t, events: this.events(step, t, 'timed', 0) };
      }
      case 'compute': {
        const gemm: NativeOp = { op: 'gemm', dtype: a.dtype, m: a.m, n: a.n, k: a.k, ...(a.smCount ? { smCount: a.smCount } : {}) };
        const warm = step.warmup > 0 ? this.comm.enqueue(step.stream, gemm, step.warmup) : null;
        const timed = this.comm.enqueue(step.stream, gemm, step.iters);
        const [, t] = await Promise.all([warm, timed]);
        const meanUs = durationsUs(t).reduce((x, y) => x + y, 0) / t.startNs.length;
        const gflops = (2 * a.m * a.n * a.k) / (meanUs * 1e3);
        return { ...none, timed: t, events: this.events(step, t, 'timed', 0), note: `${gflops.toFixed(2)} GFLOP/s` };
      }
      case 'pair':
        this.pairs ??= new PairRunner(this.host.pairs!, this.memory, this.host.ncclProfile ?? null, this.iterationEvents);
        return this.pairs.run(step as PlanStep & { action: typeof a });
      case 'wait': {
        const start = nowNs();
        await this.waitFor(a.id);
        return {
          ...none,
          events: [
            { rank, stream: step.stream, step: step.index, name: step.label, phase: 'block', startNs: start, endNs: nowNs(), bytes: 0 },
          ],
        };
      }
      case 'block-begin': {
        await this.flight.enqueue(step.index, step.stream, { op: 'barrier' }, 1);
        this.blockStart.set(`${a.compare}/${a.variant}/${a.repeat}`, nowNs());
        return none;
      }
      case 'block-end': {
        await this.waitFor(null);
        const hostEnd = nowNs();
        await this.comm.drain(step.stream); // the outputs of the block's prestaged ops, for checking
        // The block's time is the span of its operations, from the first start to the last end on
        // any stream of this rank (backend clocks: CUDA events on nccl), so that staging data in
        // and out of a GPU between operations is not counted; the host clock when there are none.
        const ops = this.deferred.flatMap(([, o]) => o.events).filter((e) => STREAM_PHASES.has(e.phase));
        const start = ops.length
          ? Math.min(...ops.map((e) => e.startNs))
          : (this.blockStart.get(`${a.compare}/${a.variant}/${a.repeat}`) ?? hostEnd);
        const t = { startNs: [start], endNs: [ops.length ? Math.max(...ops.map((e) => e.endNs)) : hostEnd] };
        for (const [inner, outcome] of this.deferred.splice(0)) this.report(inner, outcome);
        this.leaveVariant();
        return { ...none, timed: t, events: this.events(step, t, 'block', 0) };
      }
    }
  }
}
