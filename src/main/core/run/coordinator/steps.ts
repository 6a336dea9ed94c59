// The steps' results as the ranks send them: a step's record once every rank in it has ended it,
// the events that came with it, and when each rank began each step.
import { summarizeStep } from '../../../../shared/run/record/aggregate.js';
import { takesPart } from '../../../../shared/plan/per-rank.js';
import type { Plan } from '../../../../shared/plan/types.js';
import type { RankStepResult, TimelineEvent } from '../../../../shared/run/rank/protocol.js';
import type { StepRecord } from '../../../../shared/run/record/record.js';

export interface StepDone {
  record: StepRecord;
  /** Steps done so far, and in all. */
  done: number;
  total: number;
  /** The step's events from every rank in it. */
  events: TimelineEvent[];
}

export class StepTally {
  private readonly results = new Map<number, RankStepResult[]>();
  private readonly records = new Map<number, StepRecord>();
  /** A step's events from the ranks that have ended it, until every rank has (then they go out with its record). */
  private readonly pending = new Map<number, TimelineEvent[]>();
  private readonly allEvents: TimelineEvent[] = [];
  /** When each rank began each step (`rank/step` → its own ns). */
  readonly beganNs = new Map<string, number>();
  /** How many ranks take part in each step. */
  private readonly participants: number[];

  constructor(private readonly plan: Plan) {
    const ranks = Array.from({ length: plan.world }, (_, r) => r);
    this.participants = plan.steps.map((s) => ranks.filter((r) => takesPart(s, r)).length);
  }

  began(rank: number, step: number, atNs: number): void {
    this.beganNs.set(`${rank}/${step}`, atNs);
  }

  /** A rank's result and events for a step; the step's record once it is the last rank in it. */
  ended(result: RankStepResult, events: readonly TimelineEvent[]): StepDone | null {
    const list = this.results.get(result.step) ?? [];
    list.push(result);
    this.results.set(result.step, list);
    this.allEvents.push(...events);
    const stepEvents = this.pending.get(result.step) ?? [];
    stepEvents.push(...events);
    this.pending.set(result.step, stepEvents);
    if (list.length !== this.participants[result.step]) return null;
    const record = summarizeStep(this.plan.steps[result.step], list, this.plan.world);
    this.records.set(result.step, record);
    this.pending.delete(result.step);
    return { record, done: this.records.size, total: this.plan.steps.length, events: stepEvents };
  }

  /** Has the step ended on every rank in it? */
  finished(step: number): boolean {
    return this.records.has(step);
  }

  /** Has `rank` sent its result for the step? */
  finishedOn(step: number, rank: number): boolean {
    return (this.results.get(step) ?? []).some((x) => x.rank === rank);
  }

  /** Every event the ranks sent, in the order they came. */
  get events(): readonly TimelineEvent[] {
    return this.allEvents;
  }

  /**
   * The steps' records in plan order. `ended`: a step begun (`begun`) or with some results and not
   * finished is there too, as `unfinishedVerdict` (else left out, as still running).
   */
  stepRecords(ended: boolean, begun: (step: number) => boolean, unfinishedVerdict: 'stopped' | 'error'): StepRecord[] {
    const steps: StepRecord[] = [];
    for (const s of this.plan.steps) {
      const done = this.records.get(s.index);
      if (done) steps.push(done);
      else if (ended && (this.results.has(s.index) || begun(s.index)))
        steps.push(summarizeStep(s, this.results.get(s.index) ?? [], this.plan.world, unfinishedVerdict));
    }
    return steps;
  }
}
