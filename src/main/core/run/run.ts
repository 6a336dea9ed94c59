// One run of a scenario and its record: forks a rank process per rank, relays the communicator id,
// collects results, ends on failure, and produces the run record. The watchdog and each rank's
// position are watchdog.ts's; pairs' gates and step mode's pauses are step-gates.ts's. No Electron here.
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { summarizeCompares, summarizeStep } from '../../../shared/run/record/aggregate.js';
import { expectationOf } from '../../../shared/results/expectation.js';
import { describeEntry } from '../../../shared/run/rank/flight.js';
import { unfinishedEvents, type InFlight } from '../../../shared/run/rank/unfinished.js';
import { takesPart } from '../../../shared/plan/per-rank.js';
import type { Plan, PlanStep } from '../../../shared/plan/types.js';
import {
  PROTOCOL_VERSION,
  type BackendName,
  type RankStepResult,
  type TimelineEvent,
  type WorkerToCore,
} from '../../../shared/run/rank/protocol.js';
import {
  RECORD_FORMAT,
  RECORD_VERSION,
  type Environment,
  type LogLine,
  type RunError,
  type RunRecord,
  type StepRecord,
} from '../../../shared/run/record/record.js';
import { nowNs } from '../ground/clock.js';
import { collectEnvironment } from '../machine/environment.js';
import { describeNcclLibrary, ncclChoice } from '../machine/nccl-library.js';
import { StepGates } from './step-gates.js';
import { Watchdog } from './watchdog.js';
import { forkedRanks, type RankSet, type RankSource, type WorkerLink } from './workers.js';
import { hostDifferences } from '../../../shared/run/hosts/hosts.js';
import { rankFailureMessage } from './rank-failure.js';
import { pairCells } from './pair-cells.js';
import { kernelsByStep } from '../../../shared/run/nccl/nccl-kernels.js';
import { resolveWorkerEntry } from '../ground/paths.js';
import { checkedRankEnv } from '../../../shared/scenario/rank-env.js';

export interface RunOptions {
  plan: Plan;
  backend: BackendName;
  backendNote?: string | null;
  scenario: unknown;
  /** The scenario's text as given (kept in the record for a replay to open as written). */
  scenarioText?: string;
  scenarioFile: string | null;
  workerEntry?: string;
  /** How long ranks may take to start and join before the run fails. */
  startTimeoutMs?: number;
  /** How long ranks get to exit after an abort before they are killed. */
  abortGraceMs?: number;
  env?: NodeJS.ProcessEnv;
  /** When the run was asked for (names its record file); now by default. */
  createdAt?: Date;
  /** Step mode: ranks wait before each step (learn/step-mode.ts) until next(). */
  stepMode?: boolean;
  /** Where the ranks come from: forked here by default, or joined from a launcher (hosts/listener.ts). */
  ranks?: RankSource;
  /** The NCCL library the run names (--nccl; checked by start-run.ts): forked ranks load it (CLAB_NCCL_LIBRARY). */
  ncclLibrary?: string;
}

export interface RunEvents {
  log: [LogLine];
  step: [StepRecord];
  progress: [{ done: number; total: number; step: StepRecord; events: TimelineEvent[] }];
  failure: [RunError];
  /** Step mode: every rank still running waits; `step` is the one next() runs. */
  paused: [{ step: number }];
  /** A line from the lab that every door shows as it comes (where to start the workers, who joined). */
  notice: [string];
}

/** CLAB_TRACE: the core's own moments on stderr, milliseconds since the process started. */
const trace = (text: string) => {
  if (process.env.CLAB_TRACE) process.stderr.write(`[trace] core ${performance.now().toFixed(1)} ms: ${text}\n`);
};
const WATCHDOG_INTERVAL_MS = 100;
/** Beyond a pair's timeout, what the ranks left out of a gate get to reach it once no step runs anywhere. */
const GATE_GRACE_MS = 2_000;

export class LabRun extends EventEmitter<RunEvents> {
  readonly id = `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  readonly plan: Plan;
  private readonly createdAt: Date;
  private workers: WorkerLink[] = [];
  /** The ranks' links once they are there (with their hosts, for ranks that joined from a launcher). */
  private rankSet: RankSet | null = null;
  private source: RankSource | null = null;
  /** The plan the ranks got: the one compiled, with each remote rank's device on its host. */
  private sentPlan: Plan;
  private results = new Map<number, RankStepResult[]>();
  private stepRecords = new Map<number, StepRecord>();
  /** When each rank began each step (`rank/step` → ns), and when the run failed or was stopped. */
  private beganNs = new Map<string, number>();
  private failedAtNs: number | null = null;
  /** Since when ranks wait at a gate with no step running anywhere: the others have a deadline to come. */
  private gateIdleSinceMs = 0;
  private participants: number[];
  private events: TimelineEvent[] = [];
  /** A step's events from the ranks that have ended it, until every rank has (then they go out with its record). */
  private pendingEvents = new Map<number, TimelineEvent[]>();
  private logs: LogLine[] = [];
  private done = new Set<number>();
  private exited = new Set<number>();
  private error: RunError | null = null;
  private stopped = false;
  private watchdog: NodeJS.Timeout | null = null;
  private killTimer: NodeJS.Timeout | null = null;
  private finished!: Promise<void>;
  private environment: Environment | null = null;
  private finish!: () => void;
  private startedAtMs = 0;
  private readonly positions: Watchdog;
  private readonly gates: StepGates;
  /** A rank's failure, as it said it: its message gets every rank's last calls once all have reported (end()). */
  private failureBase: string | null = null;
  /** The plan's NCCL settings, checked as a worker checks them (scenario/rank-env.ts): a bad plan is refused before any rank starts. */
  private readonly rankEnv: Record<string, string>;

  constructor(private readonly options: RunOptions) {
    super();
    this.plan = options.plan;
    this.rankEnv = checkedRankEnv(options.plan.env);
    this.sentPlan = options.plan;
    this.createdAt = options.createdAt ?? new Date();
    this.participants = this.plan.steps.map((s) => this.ranks().filter((r) => takesPart(s, r)).length);
    this.positions = new Watchdog(this.plan, options.startTimeoutMs ?? 30_000);
    this.gates = new StepGates(this.plan.world);
  }

  private ranks(): number[] {
    return Array.from({ length: this.plan.world }, (_, r) => r);
  }

  private step(index: number): PlanStep {
    return this.plan.steps[index];
  }

  private log(rank: number | null, text: string): void {
    const line = { rank, atNs: nowNs(), text };
    this.logs.push(line);
    this.emit('log', line);
  }

  /** A line of the lab's own that every door shows, kept in the record's log too. */
  notice(text: string): void {
    this.log(null, text);
    this.emit('notice', text);
  }

  /** "rank 3", or "rank 3 on host b" where ranks joined from several hosts. */
  private where(rank: number): string {
    return this.rankSet?.where?.(rank) ?? `rank ${rank}`;
  }

  /** Runs to the end (or failure) and resolves with the run record; never rejects for a rank's failure. */
  async run(): Promise<RunRecord> {
    this.finished = new Promise((resolve) => {
      this.finish = resolve;
    });
    this.source = this.options.ranks ?? forkedRanks(this.options.workerEntry ?? resolveWorkerEntry(), this.plan.world);
    this.startedAtMs = Date.now();
    this.log(
      null,
      `run ${this.id}: ${this.plan.world} rank${this.plan.world === 1 ? '' : 's'} on the ${this.options.backend} backend, ${this.plan.steps.length} steps`,
    );
    // The scenario's NCCL settings over the environment clab was started in.
    const env = { ...(this.options.env ?? process.env), ...this.rankEnv };
    // The run's own NCCL, where it names one, over CLAB_NCCL_LIBRARY: the variable the ranks' loader reads.
    const ncclLibrary = this.options.ncclLibrary;
    const ranksEnv = ncclLibrary ? { ...env, CLAB_NCCL_LIBRARY: ncclLibrary } : env;
    const environment = () =>
      collectEnvironment(this.options.backend, this.options.backendNote ?? null, undefined, ranksEnv, () =>
        describeNcclLibrary(ncclChoice(ncclLibrary, ranksEnv)),
      );
    trace(`starting ${this.plan.world} rank${this.plan.world === 1 ? '' : 's'}`);
    const opened = this.source.open(
      {
        message: (r, m) => this.onMessage(r, m),
        output: (r, line) => this.log(r, line),
        exit: (r, code, signal, lost) => this.onExit(r, code, signal, lost),
        invalid: (r, e) => this.fail(r, null, 'CLAB_PROTOCOL', e.message),
      },
      { runId: this.id, env: ranksEnv },
    );
    // Forked ranks: read while they start up (NVML and the CUDA runtime take a moment), not after
    // they end. Ranks from a launcher bring their hosts' environments; the core's stands in only
    // when they never came.
    const local = this.options.ranks ? null : environment();
    if (local)
      void local.then((e) => {
        this.environment = e;
      });
    try {
      this.rankSet = await opened;
    } catch (e) {
      this.environment = await (local ?? environment());
      const error = e as Error & { code?: string };
      this.fail(null, null, this.stopped ? 'CLAB_STOPPED' : (error.code ?? 'CLAB_START_TIMEOUT'), error.message);
      this.end();
      return this.record();
    }
    this.workers = this.rankSet.links;
    // Each nccl rank's GPU on its own host (cpu ranks have none to pick).
    if (this.rankSet.devices && this.options.backend === 'nccl') this.sentPlan = { ...this.plan, devices: this.rankSet.devices };
    if (this.rankSet.hosts) this.environment = this.remoteEnvironment(this.rankSet);
    this.startedAtMs = Date.now();
    for (const w of this.workers) {
      w.send({
        type: 'start',
        v: PROTOCOL_VERSION,
        runId: this.id,
        rank: w.rank,
        backend: this.options.backend,
        plan: this.sentPlan,
        stepMode: this.options.stepMode,
      });
    }
    this.watchdog = setInterval(() => this.checkProgress(), WATCHDOG_INTERVAL_MS);
    await this.finished;
    if (local) this.environment = await local;
    return this.record();
  }

  /** Ranks from a launcher: the record's environment is rank 0's host's, as the core may have no GPU at all. */
  private remoteEnvironment(set: RankSet): Environment {
    const first = set.hosts!.find((h) => h.ranks.includes(0)) ?? set.hosts![0];
    return { ...first.environment, backend: this.options.backend, backendNote: this.options.backendNote ?? first.environment.backendNote };
  }

  /** The record as it stands while the run goes (status "incomplete"); null until the environment is known. */
  snapshot(): RunRecord | null {
    if (!this.environment) return null;
    return { ...this.record(false), status: 'incomplete', finishedAt: null };
  }

  /** Process ids of the rank processes (undefined where a rank could not be started). */
  workerPids(): (number | undefined)[] {
    return this.workers.map((w) => w.pid);
  }

  /** Stops a run in progress: ranks are told to abort, then killed if they linger. */
  stop(reason = 'stopped by the user'): void {
    if (this.error || this.exited.size === this.plan.world) return;
    // Still waiting for ranks to join: no rank to tell, the wait ends (run() ends the run).
    if (!this.rankSet && this.source) {
      this.stopped = true;
      return this.source.close(reason);
    }
    this.stopped = true;
    this.fail(null, null, 'CLAB_STOPPED', reason);
  }

  /** Step mode: runs the step the run is paused before; false when it is not paused there. */
  next(): boolean {
    if (this.gates.pausedAt() === null || this.error) return false;
    const { step, waitedMs, ranks } = this.gates.release()!;
    this.gateIdleSinceMs = Date.now();
    this.positions.giveBack(waitedMs, (index) => this.stepRecords.has(index));
    for (const rank of ranks) this.workers[rank].send({ type: 'next', v: PROTOCOL_VERSION, step });
    return true;
  }

  /** The step the run is paused before (step mode), or null. */
  pausedAt(): number | null {
    return this.gates.pausedAt();
  }

  /** Step mode: once every rank still running waits, the run is paused (step-gates.ts). */
  private announcePause(): void {
    if (this.error) return;
    const step = this.gates.announce(this.ranks().filter((r) => !this.done.has(r) && !this.exited.has(r)));
    if (step !== null) this.emit('paused', { step });
  }

  private onMessage(rank: number, m: WorkerToCore): void {
    switch (m.type) {
      case 'unique-id': {
        // A pair's id goes to the pair's other rank only; the run's to every other rank.
        const a = m.step === undefined ? null : this.step(m.step)?.action;
        if (m.step !== undefined && a?.kind === 'pair') {
          const other = rank === a.from ? a.to : a.from;
          this.workers[other]?.send({ type: 'comm-id', v: PROTOCOL_VERSION, id: m.id, step: m.step });
          return;
        }
        // A compare variant's own communicator (its block-begin step) goes to every rank too, with its step.
        for (const w of this.workers)
          if (w.rank !== rank)
            w.send({ type: 'comm-id', v: PROTOCOL_VERSION, id: m.id, ...(m.step !== undefined ? { step: m.step } : {}) });
        return;
      }
      case 'gate': {
        if (this.gates.arrive(rank, m.step)) for (const w of this.workers) w.send({ type: 'gate-open', v: PROTOCOL_VERSION, step: m.step });
        else this.announcePause();
        return;
      }
      case 'log':
        this.positions.join(rank);
        return this.log(rank, m.text);
      case 'step-begin':
        trace(`rank ${rank} began step ${m.step}`);
        this.beganNs.set(`${rank}/${m.step}`, m.atNs);
        return this.positions.stepBegan(rank, m.step);
      case 'entered':
        return this.positions.entered(rank, m.entry);
      case 'paused':
        this.gates.waitBefore(rank, m.step);
        return this.announcePause();
      case 'step-end':
        return this.onStepEnd(rank, m.result, m.events);
      case 'failed': {
        const stepLabel = m.step === null ? null : (this.step(m.step)?.label ?? null);
        return this.failRank(
          rank,
          m.step,
          m.code,
          rankFailureMessage({ rank, step: m.step, stepLabel, code: m.code, message: m.message }, this.logs),
        );
      }
      case 'done':
        this.done.add(rank);
        // Ranks keep their communicator until every one is done (none goes while a peer may still
        // read its buffers), then exit together.
        if (this.done.size === this.plan.world) {
          trace(`every rank done; leave sent`);
          for (const w of this.workers) w.send({ type: 'leave', v: PROTOCOL_VERSION });
        }
        return this.announcePause();
    }
  }

  private onStepEnd(rank: number, result: RankStepResult, events: TimelineEvent[]): void {
    this.positions.stepEnded(rank, result.step);
    const list = this.results.get(result.step) ?? [];
    list.push(result);
    this.results.set(result.step, list);
    for (const e of events) this.events.push(e);
    const stepEvents = this.pendingEvents.get(result.step) ?? [];
    stepEvents.push(...events);
    this.pendingEvents.set(result.step, stepEvents);
    if (list.length === this.participants[result.step]) {
      const record = summarizeStep(this.step(result.step), list, this.plan.world);
      this.stepRecords.set(result.step, record);
      this.pendingEvents.delete(result.step);
      this.emit('step', record);
      this.emit('progress', { done: this.stepRecords.size, total: this.plan.steps.length, step: record, events: stepEvents });
    }
  }

  private onExit(rank: number, code: number | null, signal: NodeJS.Signals | null, lost?: string): void {
    trace(`rank ${rank} closed (${lost ?? code ?? signal})`);
    this.exited.add(rank);
    if (!this.done.has(rank) && !this.error) {
      const { step, where } = this.whereIs(rank);
      if (lost) this.failRank(rank, step, 'CLAB_HOST_LOST', `${this.where(rank)} was lost${where || ' before its first step'}: ${lost}`);
      else
        this.failRank(
          rank,
          step,
          'CLAB_RANK_EXITED',
          `${this.where(rank)} exited${signal ? ` on signal ${signal}` : ` with code ${code}`}${where}`,
        );
    }
    if (this.exited.size === this.plan.world) this.end();
  }

  /** The step a rank that exited was in, or, idle (outside the pair that runs), the gate or step it was waiting through. */
  private whereIs(rank: number): { step: number | null; where: string } {
    const own = this.positions.stepsOf(rank)[0];
    if (own !== undefined) return { step: own, where: ` during step ${own} (${this.step(own).label})` };
    const gate = this.gates.gateOf(rank);
    if (gate !== undefined) return { step: gate, where: ` while waiting at the gate of step ${gate} (${this.step(gate).label})` };
    const running = [...this.positions.began.keys()].filter((i) => !this.stepRecords.has(i));
    // Between a pair's gate and its first step: the unit whose gate opened last.
    const opened = [...this.gates.opened].sort((x, y) => y[1] - x[1])[0]?.[0];
    if (!running.length && opened === undefined) return { step: null, where: '' };
    const other = running.length ? Math.min(...running) : opened!;
    // A step the rank is in that others began first: it had not yet said it began it.
    if (takesPart(this.step(other), rank))
      return { step: other, where: ` during step ${other} (${this.step(other).label}), before it began it` };
    return { step: other, where: ` while idle, during step ${other} (${this.step(other).label}), which it takes no part in` };
  }

  /**
   * Ranks at a pair's gate wait for every rank: once none has a step running, those not there yet
   * have the pair's timeout (and GATE_GRACE_MS) to come, or the run fails naming them.
   */
  private checkGate(now: number): void {
    const atGate = this.gates.atGateNow();
    if (!atGate.size || this.positions.anyRunning() || !this.positions.allJoined()) {
      this.gateIdleSinceMs = now;
      return;
    }
    const gate = Math.min(...atGate.values());
    const allowedMs = this.step(gate).timeoutMs + GATE_GRACE_MS;
    if (now - this.gateIdleSinceMs <= allowedMs) return;
    const missing = this.ranks().filter((r) => !atGate.has(r) && !this.exited.has(r));
    if (!missing.length) return;
    const last = (r: number) => {
      const entry = this.positions.flightOf(r).at(-1);
      return entry
        ? `, its last call ${describeEntry(entry)} of ${entry.step === null ? 'the line-up before the first step' : `step ${entry.step} (${this.step(entry.step).label})`}`
        : '';
    };
    const waiting = [...atGate.keys()].sort((a, b) => a - b);
    this.fail(
      missing[0],
      gate,
      'CLAB_GATE_TIMEOUT',
      `rank${missing.length > 1 ? 's' : ''} ${missing.join(', ')} never reached the gate of step ${gate} (${this.step(gate).label}) within ${allowedMs} ms, ` +
        `while rank${waiting.length > 1 ? 's' : ''} ${waiting.join(', ')} waited there and no step ran (${missing.map((r) => `rank ${r}${last(r)}`).join('; ')})`,
    );
  }

  private checkProgress(): void {
    // While the run waits for the learner nothing runs, and no step's time goes by.
    if (this.error || this.gates.pausedAt() !== null) return;
    this.checkGate(Date.now());
    if (this.error) return;
    const overdue = this.positions.check(
      this.startedAtMs,
      (index) => this.stepRecords.has(index),
      (index, rank) => (this.results.get(index) ?? []).some((x) => x.rank === rank),
    );
    if (overdue) this.fail(overdue.rank, overdue.step, overdue.code, overdue.message);
  }

  /**
   * A failure one rank reported; its message gets each rank's last call at the end, when every
   * rank's calls are in: one list, not a first one (in the log, said as it failed) that the end's
   * would contradict.
   */
  private failRank(rank: number, step: number | null, code: string, message: string): void {
    if (this.error) return;
    this.failureBase = message;
    this.fail(rank, step, code, message);
  }

  private fail(rank: number | null, step: number | null, code: string, message: string): void {
    if (this.error) return;
    this.failedAtNs = nowNs();
    this.error = { rank, step, stepLabel: step === null ? null : (this.step(step)?.label ?? null), code, message };
    this.log(rank, `error: ${message}`);
    this.emit('failure', this.error);
    for (const w of this.workers) w.send({ type: 'abort', v: PROTOCOL_VERSION, reason: message });
    this.killTimer = setTimeout(() => this.workers.forEach((w) => w.kill()), this.options.abortGraceMs ?? 1500);
  }

  private end(): void {
    // The other ranks' calls may have been read after the failing rank's message: say them all now.
    if (this.error && this.failureBase !== null) this.error = { ...this.error, message: this.failureBase + this.positions.lastCalls() };
    if (this.watchdog) clearInterval(this.watchdog);
    if (this.killTimer) clearTimeout(this.killTimer);
    this.finish();
  }

  /** Each pairs step's transport and error (pair-cells.ts), from the output its ranks printed while the pair ran. */
  private addPairCells(steps: StepRecord[]): void {
    if (!this.plan.pairs.length) return;
    const opened = [...this.gates.opened].sort((x, y) => x[1] - y[1]);
    const windows = new Map(opened.map(([step, startNs], i) => [step, { startNs, endNs: opened[i + 1]?.[1] ?? Number.MAX_SAFE_INTEGER }]));
    const cells = pairCells(this.plan, steps, this.logs, windows, this.options.backend);
    for (let i = 0; i < steps.length; i++) {
      const cell = cells.get(steps[i].index);
      if (cell) steps[i] = { ...steps[i], pair: cell };
    }
  }

  /** Each collective step's calls by the kernel NCCL ran them on, from the INFO lines its ranks printed (nccl-kernels.ts). */
  private addKernels(steps: StepRecord[]): void {
    if (this.options.backend !== 'nccl') return;
    const kernels = kernelsByStep(this.plan, this.logs, this.beganNs);
    for (let i = 0; i < steps.length; i++) {
      const k = kernels.get(steps[i].index);
      if (k) steps[i] = { ...steps[i], kernels: k };
    }
  }

  /** A failed or stopped run's steps still in flight on each rank, as open slices up to the failure. */
  private unfinished(ended: boolean): TimelineEvent[] {
    if (!ended || this.failedAtNs === null) return [];
    const inFlight: InFlight[] = this.positions
      .stepsInFlight()
      .map(({ rank, step }) => ({ rank, step, beganNs: this.beganNs.get(`${rank}/${step}`) ?? this.failedAtNs! }));
    return unfinishedEvents(this.plan, inFlight, this.positions.flightRecords(), this.failedAtNs);
  }

  /** `ended`: steps begun and not finished are shown as stopped or failed (else left out, as still running). */
  private record(ended = true): RunRecord {
    const steps: StepRecord[] = [];
    for (const s of this.plan.steps) {
      const done = this.stepRecords.get(s.index);
      if (done) steps.push(done);
      else if (ended && (this.results.has(s.index) || this.positions.began.has(s.index))) {
        // Stopping is the user's choice, not a fault of the step it caught in flight.
        steps.push(summarizeStep(s, this.results.get(s.index) ?? [], this.plan.world, this.stopped ? 'stopped' : 'error'));
      }
    }
    this.addPairCells(steps);
    this.addKernels(steps);
    const anyWrong = steps.some((s) => s.verdict === 'fail' || (s.verdict === 'error' && s.pair?.error));
    const status = this.error ? (this.stopped ? 'aborted' : 'error') : anyWrong ? 'failed' : 'passed';
    const expectation = expectationOf(this.plan, { status, error: this.error, steps });
    // The summary a listing shows comes first, so that the file's head holds it (core/library/saved-runs.ts).
    return {
      format: RECORD_FORMAT,
      version: RECORD_VERSION,
      id: this.id,
      createdAt: this.createdAt.toISOString(),
      finishedAt: new Date().toISOString(),
      scenarioFile: this.options.scenarioFile,
      world: this.plan.world,
      status,
      environment: this.environment!, // set in run() before record() is called
      error: this.error,
      // How a run meant to fail reads (shared/results/expectation.ts): part of what a listing shows.
      ...(expectation ? { expectation } : {}),
      scenario: this.options.scenario,
      ...(this.options.scenarioText !== undefined ? { scenarioText: this.options.scenarioText } : {}),
      plan: this.sentPlan,
      steps,
      compares: summarizeCompares(this.plan, steps, this.events),
      logs: this.logs,
      events: [...this.events, ...this.unfinished(ended)].sort((a, b) => a.startNs - b.startNs),
      ...(this.rankSet?.hosts ? { hosts: this.rankSet.hosts, hostWarnings: hostDifferences(this.rankSet.hosts) } : {}),
    };
  }
}
