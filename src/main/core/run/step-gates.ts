// Where ranks wait for the core: a pair's gate (every rank meets there, so pairs run one at a
// time) and step mode's pause before a step (until next()). The coordinator tells it who waits
// where and says what it answers; the gates hold no link to a rank and read no clock.

export class StepGates {
  /** Pairs: the ranks at the gate (a pair's first step) that has not opened yet, and its step. */
  private readonly atGate = new Map<number, number>();
  /** When each gate opened (CLOCK_MONOTONIC ns): a pair's window for the lines its ranks print. */
  readonly opened = new Map<number, number>();
  /** Step mode: the step each rank waits before, and the pause announced once every rank still running waits. */
  private readonly waiting = new Map<number, number>();
  private pause: { step: number; sinceMs: number } | null = null;

  constructor(private readonly world: number) {}

  /** `rank` is at the gate of `step`; true when that opens it (every rank is there). */
  arrive(rank: number, step: number, nowNs: number): boolean {
    // Gates come one at a time: no rank reaches the next before every rank passed this one.
    this.atGate.set(rank, step);
    if (this.atGate.size < this.world) return false;
    this.opened.set(step, nowNs);
    this.atGate.clear();
    return true;
  }

  /** The gate `rank` waits at, if any. */
  gateOf(rank: number): number | undefined {
    return this.atGate.get(rank);
  }

  /** The ranks at the gate not opened yet, each with its step. */
  atGateNow(): ReadonlyMap<number, number> {
    return this.atGate;
  }

  /** Step mode: `rank` waits before `step`. */
  waitBefore(rank: number, step: number): void {
    this.waiting.set(rank, step);
  }

  /**
   * Once every rank still running waits, the earliest step they wait before is the run's pause:
   * each rank that takes part in it waits there (none can have passed it), and nothing runs.
   * Returns the step newly paused before, or null.
   */
  announce(running: number[], nowMs: number): number | null {
    if (this.pause) return null;
    // A rank at a pair's gate waits too (for the pair before it to end), before that later step.
    const waitsBefore = (r: number) => this.waiting.get(r) ?? this.atGate.get(r);
    if (!running.length || !running.every((r) => waitsBefore(r) !== undefined)) return null;
    const step = Math.min(...running.map((r) => waitsBefore(r)!));
    this.pause = { step, sinceMs: nowMs };
    return step;
  }

  /** Ends the pause: the step, how long it lasted and the ranks to tell to go; null when not paused. */
  release(nowMs: number): { step: number; waitedMs: number; ranks: number[] } | null {
    const pause = this.pause;
    if (!pause) return null;
    this.pause = null;
    const ranks: number[] = [];
    for (const [rank, step] of [...this.waiting]) {
      if (step !== pause.step) continue;
      this.waiting.delete(rank);
      ranks.push(rank);
    }
    return { step: pause.step, waitedMs: nowMs - pause.sinceMs, ranks };
  }

  /** The step the run is paused before (step mode), or null. */
  pausedAt(): number | null {
    return this.pause?.step ?? null;
  }
}
