// The run's coordination, pure: what the ranks say (message, exited), the passing of time (tick)
// and the user (stop, next) come in, each with the time it happens (CLOCK_MONOTONIC ns); what to do
// goes out as effects (effects.ts) for the driver (run.ts) to carry out. It holds the run's state in
// a few handlers — the steps' results (steps.ts), the ranks' positions and the watchdog
// (watchdog.ts), the gates and pauses (step-gates.ts, where.ts), the failure (failure.ts), the pairs
// (pairs.ts), the log (logs.ts) — and makes the record (record.ts). No process, timer or clock here:
// a scripted sequence of messages tests it in-process.
import { unfinishedEvents, type InFlight } from '../../../../shared/run/rank/unfinished.js';
import type { Plan } from '../../../../shared/plan/types.js';
import { PROTOCOL_VERSION, type BackendName, type TimelineEvent, type WorkerToCore } from '../../../../shared/run/rank/protocol.js';
import type { Environment, HostRecord, RunError, RunRecord } from '../../../../shared/run/record/record.js';
import { StepGates } from '../step-gates.js';
import { Watchdog } from '../watchdog.js';
import { rankFailureMessage } from '../rank-failure.js';
import type { Effect, RankExit } from './effects.js';
import { RunLog } from './logs.js';
import { StepTally } from './steps.js';
import { RunFailure } from './failure.js';
import { commIdTargets, withPairCells } from './pairs.js';
import { GateWatch, whereIs } from './where.js';
import { runRecord, withKernels } from './record.js';

export interface CoordinatorOptions {
  id: string;
  plan: Plan;
  backend: BackendName;
  scenario: unknown;
  scenarioText?: string;
  scenarioFile: string | null;
  createdAt: Date;
  stepMode?: boolean;
  /** How long ranks may take to start and join before the run fails. */
  startTimeoutMs?: number;
  /** How long ranks get to exit after an abort before they are killed. */
  abortGraceMs?: number;
  /** The rank asked to send the GPUs' topology once it joined (forked nccl ranks: rank 0), for the record. */
  topologyFrom?: number;
  /** How long ranks get to exit after `leave` (every rank done) before they are killed. */
  leaveGraceMs?: number;
}

/** Ranks exit within some 0.1–0.3 s of `leave` (a GPU's context taken back by the driver); one that has not in this long is killed. */
export const LEAVE_GRACE_MS = 10_000;

/** The ranks once they are there: each remote rank's device and host, and how to name where a rank runs. */
export interface RanksThere {
  devices?: number[];
  hosts?: HostRecord[];
  where?(rank: number): string;
}

const ms = (ns: number) => ns / 1e6;

export class RunCoordinator {
  readonly plan: Plan;
  /** The plan the ranks got: the one compiled, with each remote rank's device on its host. */
  private sentPlan: Plan;
  private there: RanksThere | null = null;
  private startedAtMs = 0;
  private readonly log = new RunLog();
  private readonly steps: StepTally;
  private readonly positions: Watchdog;
  private readonly gates: StepGates;
  private readonly gateWatch: GateWatch;
  private readonly failure: RunFailure;
  private readonly done = new Set<number>();
  private readonly exits = new Set<number>();
  private ended = false;
  private topologySent = false;
  /** When `leave` went out (every rank done), and whether ranks still there past its grace were killed. */
  private leftAtMs: number | null = null;
  private leaveKilled = false;

  constructor(private readonly options: CoordinatorOptions) {
    this.plan = options.plan;
    this.sentPlan = options.plan;
    this.steps = new StepTally(this.plan);
    this.positions = new Watchdog(this.plan, options.startTimeoutMs ?? 30_000);
    this.gates = new StepGates(this.plan.world);
    this.gateWatch = new GateWatch(this.plan);
    this.failure = new RunFailure(this.plan, options.abortGraceMs ?? 1500);
  }

  private ranks(): number[] {
    return Array.from({ length: this.plan.world }, (_, r) => r);
  }

  private line(rank: number | null, text: string, now: number): Effect {
    return { kind: 'log', line: this.log.add(rank, text, now) };
  }

  /** The run's first line. */
  begin(now: number): Effect[] {
    const { world, steps } = this.plan;
    return [
      this.line(
        null,
        `run ${this.options.id}: ${world} rank${world === 1 ? '' : 's'} on the ${this.options.backend} backend, ${steps.length} steps`,
        now,
      ),
    ];
  }

  /** A line of the lab's own, or one a rank printed. */
  output(rank: number | null, text: string, now: number): Effect[] {
    return [this.line(rank, text, now)];
  }

  /** Every rank is there: each is told to start. */
  opened(there: RanksThere, now: number): Effect[] {
    this.there = there;
    if (there.devices && this.options.backend === 'nccl') this.sentPlan = { ...this.plan, devices: there.devices };
    this.startedAtMs = ms(now);
    this.gateWatch.restart(ms(now));
    const base = {
      type: 'start',
      v: PROTOCOL_VERSION,
      runId: this.options.id,
      backend: this.options.backend,
      plan: this.sentPlan,
    } as const;
    return this.ranks().map((rank) => ({
      kind: 'send',
      ranks: [rank],
      message: { ...base, rank, stepMode: this.options.stepMode, ...(rank === this.options.topologyFrom ? { topology: true } : {}) },
    }));
  }

  /** The ranks never came together (`code`, else a start timeout), or a stop ended the wait. */
  openFailed(code: string | undefined, message: string, now: number): Effect[] {
    return [...this.fail(null, null, this.failure.stopped ? 'CLAB_STOPPED' : (code ?? 'CLAB_START_TIMEOUT'), message, now), ...this.end()];
  }

  message(rank: number, m: WorkerToCore, now: number): Effect[] {
    switch (m.type) {
      case 'unique-id': {
        const message = { type: 'comm-id', v: PROTOCOL_VERSION, id: m.id, ...(m.step !== undefined ? { step: m.step } : {}) } as const;
        return [{ kind: 'send', ranks: commIdTargets(this.plan, rank, m.step), message }];
      }
      case 'gate':
        if (this.gates.arrive(rank, m.step, now))
          return [{ kind: 'send', ranks: this.ranks(), message: { type: 'gate-open', v: PROTOCOL_VERSION, step: m.step } }];
        return this.announcePause(now);
      case 'log':
        this.positions.join(rank);
        return [this.line(rank, m.text, now)];
      case 'step-begin':
        this.steps.began(rank, m.step, m.atNs);
        this.positions.stepBegan(rank, m.step, ms(now));
        return [];
      case 'entered':
        this.positions.entered(rank, m.entry);
        return [];
      case 'paused':
        this.gates.waitBefore(rank, m.step);
        return this.announcePause(now);
      case 'step-end': {
        this.positions.stepEnded(rank, m.result.step);
        const done = this.steps.ended(m.result, m.events);
        return done ? [{ kind: 'step-done', ...done }] : [];
      }
      case 'failed': {
        const stepLabel = m.step === null ? null : (this.plan.steps[m.step]?.label ?? null);
        const message = rankFailureMessage({ rank, step: m.step, stepLabel, code: m.code, message: m.message }, this.log.lines);
        return this.fail(rank, m.step, m.code, message, now, true);
      }
      case 'topology':
        // Once, from the rank asked: anything else breaks the protocol.
        if (rank !== this.options.topologyFrom || this.topologySent)
          return this.invalid(
            rank,
            `rank ${rank} sent the GPUs' topology, which ${this.topologySent ? 'came already' : 'it was not asked for'}`,
            now,
          );
        this.topologySent = true;
        return [{ kind: 'topology', topology: m.topology }];
      case 'done': {
        this.done.add(rank);
        if (this.done.size < this.plan.world) return this.announcePause(now);
        // Ranks keep their communicator until every one is done (none goes while a peer may still
        // read its buffers), then exit together. Their exit changes nothing of the run (exited()):
        // its record is the answer now, while their processes end.
        this.leftAtMs = ms(now);
        const leave: Effect = { kind: 'send', ranks: this.ranks(), message: { type: 'leave', v: PROTOCOL_VERSION } };
        return this.failure.error ? [leave] : [leave, { kind: 'answer' }];
      }
    }
  }

  /** A rank's message broke the protocol. */
  invalid(rank: number, message: string, now: number): Effect[] {
    return this.fail(rank, null, 'CLAB_PROTOCOL', message, now);
  }

  /** A rank's process (or, from another host, its link) ended. */
  exited(rank: number, how: RankExit, now: number): Effect[] {
    this.exits.add(rank);
    const out: Effect[] = [];
    if (!this.done.has(rank) && !this.failure.error) {
      const { step, where } = whereIs(this.plan, rank, this.positions, this.gates, (i) => this.steps.finished(i));
      const name = this.there?.where?.(rank) ?? `rank ${rank}`;
      if (how.lost)
        out.push(
          ...this.fail(rank, step, 'CLAB_HOST_LOST', `${name} was lost${where || ' before its first step'}: ${how.lost}`, now, true),
        );
      else {
        const why = how.signal ? ` on signal ${how.signal}` : ` with code ${how.code}`;
        out.push(...this.fail(rank, step, 'CLAB_RANK_EXITED', `${name} exited${why}${where}`, now, true));
      }
    }
    if (this.exits.size === this.plan.world) out.push(...this.end());
    return out;
  }

  /** Time goes by: a step or gate past its time fails the run; after an abort, the ranks' grace ends. */
  tick(now: number): Effect[] {
    if (this.ended) return [];
    if (this.failure.error) return this.failure.killDue(ms(now)) ? [{ kind: 'kill' }] : [];
    if (this.leftAtMs !== null) {
      const graceMs = this.options.leaveGraceMs ?? LEAVE_GRACE_MS;
      if (this.leaveKilled || ms(now) - this.leftAtMs < graceMs) return [];
      this.leaveKilled = true;
      const still = this.ranks().filter((r) => !this.exits.has(r));
      const who = still.length === 1 ? `rank ${still[0]}` : `ranks ${still.join(', ')}`;
      return [this.line(null, `${who} had not exited ${graceMs / 1000} s after every rank was done: killed`, now), { kind: 'kill' }];
    }
    // While the run waits for the learner nothing runs, and no step's time goes by.
    if (this.gates.pausedAt() !== null) return [];
    const gate = this.gateWatch.check(ms(now), this.gates, this.positions, this.exits);
    const overdue =
      gate ??
      this.positions.check(
        ms(now),
        this.startedAtMs,
        (i) => this.steps.finished(i),
        (i, r) => this.steps.finishedOn(i, r),
      );
    return overdue ? this.fail(overdue.rank, overdue.step, overdue.code, overdue.message, now) : [];
  }

  /** Stops the run: ranks are told to abort, then killed if they linger; ranks still to come are not waited for. */
  stop(reason: string, now: number): Effect[] {
    // Once every rank is done there is nothing to stop: the ranks are on their way out.
    if (this.failure.error || this.exits.size === this.plan.world || this.leftAtMs !== null) return [];
    this.failure.stopped = true;
    if (!this.there) return [{ kind: 'close', reason }];
    return this.fail(null, null, 'CLAB_STOPPED', reason, now);
  }

  /** Step mode: runs the step the run is paused before; null when it is not paused there. */
  next(now: number): Effect[] | null {
    if (this.gates.pausedAt() === null || this.failure.error) return null;
    const { step, waitedMs, ranks } = this.gates.release(ms(now))!;
    this.gateWatch.restart(ms(now));
    this.positions.giveBack(waitedMs, (i) => this.steps.finished(i));
    return [{ kind: 'send', ranks, message: { type: 'next', v: PROTOCOL_VERSION, step } }];
  }

  /** The step the run is paused before (step mode), or null. */
  pausedAt(): number | null {
    return this.gates.pausedAt();
  }

  get error(): RunError | null {
    return this.failure.error;
  }

  /** Step mode: once every rank still running waits, the run is paused (step-gates.ts). */
  private announcePause(now: number): Effect[] {
    if (this.failure.error) return [];
    const step = this.gates.announce(
      this.ranks().filter((r) => !this.done.has(r) && !this.exits.has(r)),
      ms(now),
    );
    return step === null ? [] : [{ kind: 'paused', step }];
  }

  private fail(rank: number | null, step: number | null, code: string, message: string, now: number, byRank = false): Effect[] {
    const error = byRank ? this.failure.failRank(rank!, step, code, message, now) : this.failure.fail(rank, step, code, message, now);
    if (!error) return [];
    return [
      this.line(rank, `error: ${message}`, now),
      { kind: 'failure', error },
      { kind: 'send', ranks: this.ranks(), message: { type: 'abort', v: PROTOCOL_VERSION, reason: message } },
    ];
  }

  private end(): Effect[] {
    if (this.ended) return [];
    this.ended = true;
    // The other ranks' calls may have been read after the failing rank's message: say them all now.
    this.failure.close(this.positions.lastCalls());
    return [{ kind: 'end' }];
  }

  /** A failed or stopped run's steps still in flight on each rank, as open slices up to the failure. */
  private unfinished(): TimelineEvent[] {
    const failedAt = this.failure.atNs;
    if (failedAt === null) return [];
    const inFlight: InFlight[] = this.positions
      .stepsInFlight()
      .map(({ rank, step }) => ({ rank, step, beganNs: this.steps.beganNs.get(`${rank}/${step}`) ?? failedAt }));
    return unfinishedEvents(this.plan, inFlight, this.positions.flightRecords(), failedAt);
  }

  /**
   * The run record. `ended`: steps begun and not finished are shown as stopped or failed, and as
   * open slices on the timeline (else left out, as still running).
   */
  record(environment: Environment, finishedAt: Date, ended = true): RunRecord {
    const { plan, backend } = this.options;
    // Stopping is the user's choice, not a fault of the step it caught in flight.
    let steps = this.steps.stepRecords(ended, (i) => this.positions.began.has(i), this.failure.stopped ? 'stopped' : 'error');
    steps = withPairCells(plan, steps, this.log.lines, this.gates.opened, backend);
    steps = withKernels(plan, steps, this.log.lines, this.steps.beganNs, backend);
    return runRecord({
      ...this.options,
      finishedAt,
      sentPlan: this.sentPlan,
      environment,
      error: this.failure.error,
      stopped: this.failure.stopped,
      steps,
      events: ended ? [...this.steps.events, ...this.unfinished()] : this.steps.events,
      logs: this.log.lines,
      hosts: this.there?.hosts,
    });
  }
}
