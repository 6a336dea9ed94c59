// A run coordinator driven by a script: each rank's messages, its exit, the ticks of the clock and
// the user's stop and next, each at a time given in ms, and every effect the coordinator answered
// kept in order. What real rank processes would say, said in-process.
import { RunCoordinator, type CoordinatorOptions } from '../../../../../src/main/core/run/coordinator/coordinator';
import type { Effect, RankExit } from '../../../../../src/main/core/run/coordinator/effects';
import { compilePlan } from '../../../../../src/shared/plan/compile';
import { PROTOCOL_VERSION, type RankStepResult, type WorkerToCore } from '../../../../../src/shared/run/rank/protocol';
import type { FlightCall } from '../../../../../src/shared/run/rank/flight';
import type { RunRecord } from '../../../../../src/shared/run/record/record';
import { scenarioSchema } from '../../../../../src/shared/scenario/schema';
import { syntheticRecord } from '../../../../../bench/timeline/synthetic-record';

const ENVIRONMENT = syntheticRecord({ ranks: 2, rounds: 1, warmup: 0, iters: 1, name: 'environment' }).environment;
const ns = (ms: number) => ms * 1e6;

type Said = WorkerToCore extends infer M ? (M extends WorkerToCore ? Omit<M, 'v' | 'rank'> : never) : never;

export function result(rank: number, step: number, extra: Partial<RankStepResult> = {}): RankStepResult {
  return { step, rank, verdict: 'pass', checked: 3, wrong: 0, mismatches: [], output: null, timesUs: [5], note: null, ...extra };
}

export class Script {
  readonly core: RunCoordinator;
  /** Every effect so far, in order. */
  readonly effects: Effect[] = [];
  private seq = new Map<number, number>();

  constructor(scenario: object, options: Partial<CoordinatorOptions> = {}) {
    const parsed = scenarioSchema.parse({ version: 1, name: 'scripted', defaults: { warmup: 0, iters: 1 }, ...scenario });
    this.core = new RunCoordinator({
      id: 'scripted',
      plan: compilePlan(parsed),
      backend: 'cpu',
      scenario: parsed,
      scenarioFile: null,
      createdAt: new Date(0),
      ...options,
    });
  }

  private keep(effects: Effect[]): Effect[] {
    this.effects.push(...effects);
    return effects;
  }

  /** The ranks are there at `atMs` (0 by default), each said it joined. */
  open(atMs = 0, there: Parameters<RunCoordinator['opened']>[0] = {}): this {
    this.keep(this.core.begin(ns(atMs)));
    this.keep(this.core.opened(there, ns(atMs)));
    for (let r = 0; r < this.core.plan.world; r++) this.say(r, { type: 'log', text: `joined`, atNs: ns(atMs) }, atMs);
    return this;
  }

  say(rank: number, m: Said, atMs: number): Effect[] {
    return this.keep(this.core.message(rank, { ...m, v: PROTOCOL_VERSION, rank } as WorkerToCore, ns(atMs)));
  }

  /** A line the rank printed (its stdout or stderr). */
  output(rank: number, text: string, atMs: number): Effect[] {
    return this.keep(this.core.output(rank, text, ns(atMs)));
  }

  begin(rank: number, step: number, atMs: number): Effect[] {
    return this.say(rank, { type: 'step-begin', step, atNs: ns(atMs) }, atMs);
  }

  /** The rank enters a call of `step` (numbered in its own order, from #2: #1 is the line-up). */
  enter(rank: number, step: number | null, call: FlightCall, atMs: number): Effect[] {
    const seq = (this.seq.get(rank) ?? 1) + 1;
    this.seq.set(rank, seq);
    return this.say(rank, { type: 'entered', entry: { ...call, seq, repeat: 1, step, stream: 0 } }, atMs);
  }

  end(rank: number, step: number, atMs: number, extra: Partial<RankStepResult> = {}): Effect[] {
    const event = {
      rank,
      stream: 0,
      step,
      name: `step ${step}`,
      phase: 'timed' as const,
      startNs: ns(atMs) - 1000,
      endNs: ns(atMs),
      bytes: 12,
    };
    return this.say(rank, { type: 'step-end', result: result(rank, step, extra), events: [event] }, atMs);
  }

  /** Every rank in `ranks` begins and ends `step` at `atMs`. */
  step(step: number, ranks: number[], atMs: number): this {
    for (const r of ranks) this.begin(r, step, atMs);
    for (const r of ranks) this.end(r, step, atMs);
    return this;
  }

  done(rank: number, atMs: number): Effect[] {
    return this.say(rank, { type: 'done' }, atMs);
  }

  invalid(rank: number, message: string, atMs: number): Effect[] {
    return this.keep(this.core.invalid(rank, message, ns(atMs)));
  }

  exited(rank: number, how: Partial<RankExit>, atMs: number): Effect[] {
    return this.keep(this.core.exited(rank, { code: 0, signal: null, ...how }, ns(atMs)));
  }

  tick(atMs: number): Effect[] {
    return this.keep(this.core.tick(ns(atMs)));
  }

  stop(reason: string, atMs: number): Effect[] {
    return this.keep(this.core.stop(reason, ns(atMs)));
  }

  next(atMs: number): Effect[] | null {
    const effects = this.core.next(ns(atMs));
    return effects && this.keep(effects);
  }

  /** Every rank says done and exits with code 0, in rank order. */
  finish(atMs: number): this {
    for (let r = 0; r < this.core.plan.world; r++) this.done(r, atMs);
    for (let r = 0; r < this.core.plan.world; r++) this.exited(r, {}, atMs);
    return this;
  }

  record(ended = true): RunRecord {
    return this.core.record(ENVIRONMENT, new Date(1000), ended);
  }

  /** The effects of a kind so far. */
  of<K extends Effect['kind']>(kind: K): Extract<Effect, { kind: K }>[] {
    return this.effects.filter((e): e is Extract<Effect, { kind: K }> => e.kind === kind);
  }

  /** The messages sent so far, as "type→ranks". */
  sent(type?: string): string[] {
    return this.of('send')
      .filter((e) => !type || e.message.type === type)
      .map(
        (e) => `${e.message.type}${'step' in e.message && e.message.step !== undefined ? ` ${e.message.step}` : ''}→${e.ranks.join(',')}`,
      );
  }
}
