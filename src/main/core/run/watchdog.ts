// The watchdog of a run and where each rank is: which steps began and on which ranks, the calls
// each rank entered (its flight recorder), who has joined; from them, a step past its timeout and
// every rank's position in words. The coordinator feeds it the ranks' messages and asks it at each
// tick; it reads no clock of its own (each call says when it is).
import { describeEntry, FLIGHT_ENTRIES_KEPT, type FlightEntry } from '../../../shared/run/rank/flight.js';
import { takesPart } from '../../../shared/plan/per-rank.js';
import type { Plan, PlanStep } from '../../../shared/plan/types.js';

/** Beyond a pair's own timeout: its ranks abort the pair (up to 5 s for a hung call to come back) and report. */
const PAIR_GRACE_MS = 10_000;

/** What the watchdog found wrong: the rank (if one) and step to name, a code and the message. */
export interface Overdue {
  rank: number | null;
  step: number | null;
  code: string;
  message: string;
}

export class Watchdog {
  /** When each step began (on the core's clock, ms) and on which ranks. */
  readonly began = new Map<number, { atMs: number; ranks: Set<number> }>();
  /** The steps each rank has begun and not ended. */
  private readonly current = new Map<number, Set<number>>();
  /** Each rank's flight recorder: the last communication calls it entered. */
  private readonly flight = new Map<number, FlightEntry[]>();
  private readonly joined = new Set<number>();

  constructor(
    private readonly plan: Plan,
    private readonly startTimeoutMs: number,
  ) {}

  private ranks(): number[] {
    return Array.from({ length: this.plan.world }, (_, r) => r);
  }

  private step(index: number): PlanStep {
    return this.plan.steps[index];
  }

  /** A rank said something of its own: it has started and joined. */
  join(rank: number): void {
    this.joined.add(rank);
  }

  stepBegan(rank: number, step: number, nowMs: number): void {
    const b = this.began.get(step) ?? { atMs: nowMs, ranks: new Set<number>() };
    b.ranks.add(rank);
    this.began.set(step, b);
    const cur = this.current.get(rank) ?? new Set<number>();
    cur.add(step);
    this.current.set(rank, cur);
  }

  stepEnded(rank: number, step: number): void {
    this.current.get(rank)?.delete(step);
  }

  entered(rank: number, entry: FlightEntry): void {
    const entries = this.flight.get(rank) ?? [];
    entries.push(entry);
    if (entries.length > FLIGHT_ENTRIES_KEPT) entries.shift();
    this.flight.set(rank, entries);
  }

  /** Has every rank joined? */
  allJoined(): boolean {
    return this.joined.size === this.plan.world;
  }

  /** Does any rank have a step running? */
  anyRunning(): boolean {
    return [...this.current.values()].some((steps) => steps.size > 0);
  }

  /** Every step begun and not ended, with its rank. */
  stepsInFlight(): { rank: number; step: number }[] {
    return [...this.current].flatMap(([rank, steps]) => [...steps].map((step) => ({ rank, step })));
  }

  /** The calls `rank` entered, oldest first (its flight recorder). */
  flightOf(rank: number): FlightEntry[] {
    return this.flight.get(rank) ?? [];
  }

  /** Every rank's flight recorder. */
  flightRecords(): ReadonlyMap<number, FlightEntry[]> {
    return this.flight;
  }

  /** The steps `rank` has begun and not ended, earliest first as they began. */
  stepsOf(rank: number): number[] {
    return [...(this.current.get(rank) ?? [])];
  }

  /** The learner's time is no step's: steps still in flight (async ones) get `waitedMs` back. */
  giveBack(waitedMs: number, finished: (step: number) => boolean): void {
    for (const [index, b] of this.began) if (!finished(index)) b.atMs += waitedMs;
  }

  /**
   * What is overdue now, if anything: ranks that have not joined within the start timeout, or the
   * earliest step past its time (where the ranks parted, when a later one is overdue too).
   */
  check(
    now: number,
    startedAtMs: number,
    finished: (step: number) => boolean,
    finishedOn: (step: number, rank: number) => boolean,
  ): Overdue | null {
    if (this.joined.size < this.plan.world && now - startedAtMs > this.startTimeoutMs) {
      const missing = this.ranks().filter((r) => !this.joined.has(r));
      return {
        rank: missing[0],
        step: null,
        code: 'CLAB_START_TIMEOUT',
        message: `rank${missing.length > 1 ? 's' : ''} ${missing.join(', ')} did not join the communicator within ${this.startTimeoutMs} ms`,
      };
    }
    const unfinished = [...this.began].filter(([index]) => !finished(index));
    const overdue = unfinished.filter(([index, b]) => now - b.atMs > this.allowedMs(index));
    if (!overdue.length) return null;
    // A rank that takes no part in a step may report the next step's start before the stuck rank
    // reports this one's, so the later step crosses its timeout a few milliseconds first. An
    // earlier step that began no sooner than an overdue one has waited as long: it is named.
    const firstOverdue = overdue.reduce((a, b) => (b[0] < a[0] ? b : a));
    const index = Math.min(...unfinished.filter(([i, b]) => i <= firstOverdue[0] && b.atMs >= firstOverdue[1].atMs).map(([i]) => i));
    const step = this.step(index);
    const states = this.ranks().map((r) => this.position(r, index, finishedOn));
    return {
      rank: null,
      step: index,
      code: 'CLAB_TIMEOUT',
      message: `step ${index} (${step.label}) did not finish on every rank within ${step.timeoutMs} ms: ${states.join('; ')}`,
    };
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
  private position(rank: number, index: number, finishedOn: (step: number, rank: number) => boolean): string {
    const entries = this.flight.get(rank) ?? [];
    const waiting = entries.find((e) => this.inFlight(rank, e));
    if (waiting)
      return `rank ${rank} waits in ${describeEntry(waiting)}${waiting.step === index ? '' : ` of ${this.stepName(waiting.step)}`}`;
    const cur = [...(this.current.get(rank) ?? [])];
    if (cur.length) return `rank ${rank} waits in ${this.stepName(cur[0])}`;
    const last = entries.at(-1);
    const lastCall = last ? `, its last call ${describeEntry(last)} of ${this.stepName(last.step)}` : '';
    if (!takesPart(this.step(index), rank)) return `rank ${rank} takes no part in step ${index}${lastCall}`;
    return `rank ${rank} ${finishedOn(index, rank) ? 'finished this step' : 'has not reached it'}${lastCall}`;
  }

  /** Every rank's last call entered, for a failure a rank reported. */
  lastCalls(): string {
    const calls = this.ranks().flatMap((r) => {
      const last = this.flight.get(r)?.at(-1);
      return last ? [`rank ${r} ${describeEntry(last)}${last.step === null ? ' before the first step' : ` in step ${last.step}`}`] : [];
    });
    return calls.length ? ` [last calls entered: ${calls.join('; ')}]` : '';
  }
}
