// One run of a scenario: forks a rank process per rank, relays the communicator id, collects
// results, watches for hangs and dead ranks, and produces the run record. No Electron here.
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { summarizeCompares, summarizeStep } from '../../shared/run/aggregate.js';
import { expectationOf } from '../../shared/results/expectation.js';
import { describeEntry, FLIGHT_ENTRIES_KEPT, type FlightEntry } from '../../shared/run/flight.js';
import { takesPart } from '../../shared/plan/per-rank.js';
import type { Plan, PlanStep } from '../../shared/plan/types.js';
import { PROTOCOL_VERSION, type BackendName, type RankStepResult, type TimelineEvent, type WorkerToCore } from '../../shared/run/protocol.js';
import { RECORD_FORMAT, RECORD_VERSION, type Environment, type LogLine, type RunError, type RunRecord, type StepRecord } from '../../shared/run/record.js';
import { collectEnvironment } from './environment.js';
import { forkWorker, type WorkerLink } from './workers.js';
import { rankFailureMessage } from './rank-failure.js';
import { pairCells } from './pair-cells.js';
import { resolveWorkerEntry } from './paths.js';

export interface RunOptions {
  plan: Plan;
  backend: BackendName;
  backendNote?: string | null;
  scenario: unknown;
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
}

export interface RunEvents {
  log: [LogLine];
  step: [StepRecord];
  progress: [{ done: number; total: number; step: StepRecord; events: TimelineEvent[] }];
  failure: [RunError];
  /** Step mode: every rank still running waits; `step` is the one next() runs. */
  paused: [{ step: number }];
}

const nowNs = () => Number(process.hrtime.bigint());
/** CLAB_TRACE: the core's own moments on stderr, milliseconds since the process started. */
const trace = (text: string) => { if (process.env.CLAB_TRACE) process.stderr.write(`[trace] core ${performance.now().toFixed(1)} ms: ${text}\n`); };
const WATCHDOG_INTERVAL_MS = 100;
/** Beyond a pair's own timeout: its ranks abort the pair (up to 5 s for a hung call to come back) and report. */
const PAIR_GRACE_MS = 10_000;

export class LabRun extends EventEmitter<RunEvents> {
  readonly id = `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  readonly plan: Plan;
  private readonly createdAt: Date;
  private workers: WorkerLink[] = [];
  private results = new Map<number, RankStepResult[]>();
  private stepRecords = new Map<number, StepRecord>();
  private began = new Map<number, { atMs: number; ranks: Set<number> }>();
  private current = new Map<number, Set<number>>();
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
  private joined = new Set<number>();
  /** Each rank's flight recorder: the last communication calls it entered. */
  private flight = new Map<number, FlightEntry[]>();
  /** Pairs: the ranks at the gate (a pair's first step) that has not opened yet, and its step; when each gate opened. */
  private atGate = new Map<number, number>();
  private gateOpened = new Map<number, number>();
  /** A rank's failure, as it said it: its message gets every rank's last calls once all have reported (end()). */
  private failureBase: string | null = null;
  /** Step mode: the step each rank waits before, and the pause announced once every rank still running waits. */
  private waiting = new Map<number, number>();
  private pause: { step: number; sinceMs: number } | null = null;

  constructor(private readonly options: RunOptions) {
    super();
    this.plan = options.plan;
    this.createdAt = options.createdAt ?? new Date();
    this.participants = this.plan.steps.map((s) => this.ranks().filter((r) => takesPart(s, r)).length);
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

  /** Runs to the end (or failure) and resolves with the run record; never rejects for a rank's failure. */
  async run(): Promise<RunRecord> {
    this.finished = new Promise((resolve) => { this.finish = resolve; });
    const entry = this.options.workerEntry ?? resolveWorkerEntry();
    this.startedAtMs = Date.now();
    this.log(null, `run ${this.id}: ${this.plan.world} rank${this.plan.world === 1 ? '' : 's'} on the ${this.options.backend} backend, ${this.plan.steps.length} steps`);
    // The scenario's NCCL settings over the environment clab was started in.
    const env = { ...(this.options.env ?? process.env), ...this.plan.env };
    trace(`forking ${this.plan.world} rank${this.plan.world === 1 ? '' : 's'}`);
    this.workers = this.ranks().map((rank) =>
      forkWorker(entry, rank, {
        message: (r, m) => this.onMessage(r, m),
        output: (r, line) => this.log(r, line),
        exit: (r, code, signal) => this.onExit(r, code, signal),
        invalid: (r, e) => this.fail(r, null, 'CLAB_PROTOCOL', e.message),
      }, env));
    for (const w of this.workers) {
      w.send({ type: 'start', v: PROTOCOL_VERSION, runId: this.id, rank: w.rank, backend: this.options.backend, plan: this.plan, stepMode: this.options.stepMode });
    }
    this.watchdog = setInterval(() => this.checkProgress(), WATCHDOG_INTERVAL_MS);
    // Read while the ranks start up (NVML and the CUDA runtime take a moment), not after they end.
    const environment = collectEnvironment(this.options.backend, this.options.backendNote ?? null, undefined, env)
      .then((e) => { this.environment = e; });
    await this.finished;
    await environment;
    return this.record();
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
    this.stopped = true;
    this.fail(null, null, 'CLAB_STOPPED', reason);
  }

  /** Step mode: runs the step the run is paused before; false when it is not paused there. */
  next(): boolean {
    const pause = this.pause;
    if (!pause || this.error) return false;
    this.pause = null;
    // The learner's time is no step's: steps still in flight (async ones) get it back.
    const waited = Date.now() - pause.sinceMs;
    for (const [index, b] of this.began) if (!this.stepRecords.has(index)) b.atMs += waited;
    for (const [rank, step] of [...this.waiting]) {
      if (step !== pause.step) continue;
      this.waiting.delete(rank);
      this.workers[rank].send({ type: 'next', v: PROTOCOL_VERSION, step });
    }
    return true;
  }

  /** The step the run is paused before (step mode), or null. */
  pausedAt(): number | null {
    return this.pause?.step ?? null;
  }

  /**
   * Once every rank still running waits, the earliest step they wait before is the run's pause:
   * each rank that takes part in it waits there (none can have passed it), and nothing runs.
   */
  private announcePause(): void {
    if (this.pause || this.error) return;
    const running = this.ranks().filter((r) => !this.done.has(r) && !this.exited.has(r));
    // A rank at a pair's gate waits too (for the pair before it to end), before that later step.
    const waitsBefore = (r: number) => this.waiting.get(r) ?? this.atGate.get(r);
    if (!running.length || !running.every((r) => waitsBefore(r) !== undefined)) return;
    const step = Math.min(...running.map((r) => waitsBefore(r)!));
    this.pause = { step, sinceMs: Date.now() };
    this.emit('paused', { step });
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
        for (const w of this.workers) if (w.rank !== rank) w.send({ type: 'comm-id', v: PROTOCOL_VERSION, id: m.id, ...(m.step !== undefined ? { step: m.step } : {}) });
        return;
      }
      case 'gate': {
        // Gates come one at a time: no rank reaches the next before every rank passed this one.
        this.atGate.set(rank, m.step);
        if (this.atGate.size === this.plan.world) {
          this.gateOpened.set(m.step, nowNs());
          this.atGate.clear();
          for (const w of this.workers) w.send({ type: 'gate-open', v: PROTOCOL_VERSION, step: m.step });
        } else {
          this.announcePause();
        }
        return;
      }
      case 'log':
        this.joined.add(rank);
        return this.log(rank, m.text);
      case 'step-begin': {
        const b = this.began.get(m.step) ?? { atMs: Date.now(), ranks: new Set<number>() };
        b.ranks.add(rank);
        this.began.set(m.step, b);
        const cur = this.current.get(rank) ?? new Set<number>();
        cur.add(m.step);
        this.current.set(rank, cur);
        return;
      }
      case 'entered': {
        const entries = this.flight.get(rank) ?? [];
        entries.push(m.entry);
        if (entries.length > FLIGHT_ENTRIES_KEPT) entries.shift();
        this.flight.set(rank, entries);
        return;
      }
      case 'paused':
        this.waiting.set(rank, m.step);
        return this.announcePause();
      case 'step-end':
        return this.onStepEnd(rank, m.result, m.events);
      case 'failed': {
        const stepLabel = m.step === null ? null : this.step(m.step)?.label ?? null;
        return this.failRank(rank, m.step, m.code, rankFailureMessage({ rank, step: m.step, stepLabel, code: m.code, message: m.message }, this.logs));
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
    this.current.get(rank)?.delete(result.step);
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

  private onExit(rank: number, code: number | null, signal: NodeJS.Signals | null): void {
    trace(`rank ${rank} closed (${code ?? signal})`);
    this.exited.add(rank);
    if (!this.done.has(rank) && !this.error) {
      const steps = [...(this.current.get(rank) ?? [])];
      const where = steps.length ? ` during step ${steps[0]} (${this.step(steps[0]).label})` : '';
      this.failRank(rank, steps[0] ?? null, 'CLAB_RANK_EXITED', `rank ${rank} exited${signal ? ` on signal ${signal}` : ` with code ${code}`}${where}`);
    }
    if (this.exited.size === this.plan.world) this.end();
  }

  private checkProgress(): void {
    // While the run waits for the learner nothing runs, and no step's time goes by.
    if (this.error || this.pause) return;
    const now = Date.now();
    if (this.joined.size < this.plan.world && now - this.startedAtMs > (this.options.startTimeoutMs ?? 30_000)) {
      const missing = this.ranks().filter((r) => !this.joined.has(r));
      return this.fail(missing[0], null, 'CLAB_START_TIMEOUT', `rank${missing.length > 1 ? 's' : ''} ${missing.join(', ')} did not join the communicator within ${this.options.startTimeoutMs ?? 30_000} ms`);
    }
    // The earliest overdue step: where the ranks parted, when a later one is overdue too.
    const overdue = [...this.began].filter(([index, b]) => !this.stepRecords.has(index) && now - b.atMs > this.allowedMs(index));
    if (!overdue.length) return;
    const index = Math.min(...overdue.map(([i]) => i));
    const step = this.step(index);
    const states = this.ranks().map((r) => this.position(r, index));
    this.fail(null, index, 'CLAB_TIMEOUT', `step ${index} (${step.label}) did not finish on every rank within ${step.timeoutMs} ms: ${states.join('; ')}`);
  }

  /**
   * How long a step may take before the run fails. A pair's step keeps its own timeout in the
   * rank (which aborts the pair and goes on): the run waits longer, for a rank that cannot.
   */
  private allowedMs(index: number): number {
    const step = this.step(index);
    return step.action.kind === 'pair' ? step.timeoutMs + PAIR_GRACE_MS : step.timeoutMs;
  }

  /** Has `rank` not finished the call `e` yet? Its step has begun there and not ended (the line-up barrier: no step has begun). */
  private inFlight(rank: number, e: FlightEntry): boolean {
    return e.step === null ? !this.current.has(rank) : this.current.get(rank)?.has(e.step) === true;
  }

  private stepName(index: number | null): string {
    return index === null ? 'the line-up before the first step' : `step ${index} (${this.step(index).label})`;
  }

  /** Where `rank` is, seen from the overdue step `index`: the call it waits in, from its flight recorder. */
  private position(rank: number, index: number): string {
    const entries = this.flight.get(rank) ?? [];
    const waiting = entries.find((e) => this.inFlight(rank, e));
    if (waiting) return `rank ${rank} waits in ${describeEntry(waiting)}${waiting.step === index ? '' : ` of ${this.stepName(waiting.step)}`}`;
    const cur = [...(this.current.get(rank) ?? [])];
    if (cur.length) return `rank ${rank} waits in ${this.stepName(cur[0])}`;
    const last = entries.at(-1);
    const lastCall = last ? `, its last call ${describeEntry(last)} of ${this.stepName(last.step)}` : '';
    if (!takesPart(this.step(index), rank)) return `rank ${rank} takes no part in step ${index}${lastCall}`;
    const finished = (this.results.get(index) ?? []).some((x) => x.rank === rank);
    return `rank ${rank} ${finished ? 'finished this step' : 'has not reached it'}${lastCall}`;
  }

  /** Every rank's last call entered, for a failure a rank reported. */
  private lastCalls(): string {
    const calls = this.ranks().flatMap((r) => {
      const last = this.flight.get(r)?.at(-1);
      return last ? [`rank ${r} ${describeEntry(last)}${last.step === null ? ' before the first step' : ` in step ${last.step}`}`] : [];
    });
    return calls.length ? ` [last calls entered: ${calls.join('; ')}]` : '';
  }

  /** A failure one rank reported; its message gets each rank's last call (again at the end, when every rank's calls are in). */
  private failRank(rank: number, step: number | null, code: string, message: string): void {
    if (this.error) return;
    this.failureBase = message;
    this.fail(rank, step, code, message + this.lastCalls());
  }

  private fail(rank: number | null, step: number | null, code: string, message: string): void {
    if (this.error) return;
    this.error = { rank, step, stepLabel: step === null ? null : this.step(step)?.label ?? null, code, message };
    this.log(rank, `error: ${message}`);
    this.emit('failure', this.error);
    for (const w of this.workers) w.send({ type: 'abort', v: PROTOCOL_VERSION, reason: message });
    this.killTimer = setTimeout(() => this.workers.forEach((w) => w.kill()), this.options.abortGraceMs ?? 1500);
  }

  private end(): void {
    // The other ranks' calls may have been read after the failing rank's message: say them all now.
    if (this.error && this.failureBase !== null) this.error = { ...this.error, message: this.failureBase + this.lastCalls() };
    if (this.watchdog) clearInterval(this.watchdog);
    if (this.killTimer) clearTimeout(this.killTimer);
    this.finish();
  }

  /** Each pairs step's transport and error (pair-cells.ts), from the output its ranks printed while the pair ran. */
  private addPairCells(steps: StepRecord[]): void {
    if (!this.plan.pairs.length) return;
    const opened = [...this.gateOpened].sort((x, y) => x[1] - y[1]);
    const windows = new Map(opened.map(([step, startNs], i) => [step, { startNs, endNs: opened[i + 1]?.[1] ?? Number.MAX_SAFE_INTEGER }]));
    const cells = pairCells(this.plan, steps, this.logs, windows, this.options.backend);
    for (let i = 0; i < steps.length; i++) {
      const cell = cells.get(steps[i].index);
      if (cell) steps[i] = { ...steps[i], pair: cell };
    }
  }

  /** `ended`: steps begun and not finished are shown as stopped or failed (else left out, as still running). */
  private record(ended = true): RunRecord {
    const steps: StepRecord[] = [];
    for (const s of this.plan.steps) {
      const done = this.stepRecords.get(s.index);
      if (done) steps.push(done);
      else if (ended && (this.results.has(s.index) || this.began.has(s.index))) {
        // Stopping is the user's choice, not a fault of the step it caught in flight.
        steps.push(summarizeStep(s, this.results.get(s.index) ?? [], this.plan.world, this.stopped ? 'stopped' : 'error'));
      }
    }
    this.addPairCells(steps);
    const anyWrong = steps.some((s) => s.verdict === 'fail' || (s.verdict === 'error' && s.pair?.error));
    const status = this.error ? (this.stopped ? 'aborted' : 'error') : anyWrong ? 'failed' : 'passed';
    const expectation = expectationOf(this.plan, { status, error: this.error, steps });
    return {
      format: RECORD_FORMAT,
      version: RECORD_VERSION,
      id: this.id,
      createdAt: this.createdAt.toISOString(),
      finishedAt: new Date().toISOString(),
      scenarioFile: this.options.scenarioFile,
      scenario: this.options.scenario,
      plan: this.plan,
      world: this.plan.world,
      environment: this.environment!,  // set in run() before record() is called
      status,
      error: this.error,
      steps,
      ...(expectation ? { expectation } : {}),
      compares: summarizeCompares(this.plan, steps),
      logs: this.logs,
      events: [...this.events].sort((a, b) => a.startNs - b.startNs),
    };
  }
}
