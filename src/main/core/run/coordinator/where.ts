// Where a rank is, in words, for the failures that name it: the step (or gate) a rank that exited
// was in, and the ranks a pair's gate waited for in vain.
import { describeEntry } from '../../../../shared/run/rank/flight.js';
import { takesPart } from '../../../../shared/plan/per-rank.js';
import type { Plan } from '../../../../shared/plan/types.js';
import type { StepGates } from '../step-gates.js';
import type { Overdue, Watchdog } from '../watchdog.js';

/** Beyond a pair's timeout, what the ranks left out of a gate get to reach it once no step runs anywhere. */
export const GATE_GRACE_MS = 2_000;

/** The step a rank that exited was in, or, idle (outside the pair that runs), the gate or step it was waiting through. */
export function whereIs(
  plan: Plan,
  rank: number,
  positions: Watchdog,
  gates: StepGates,
  finished: (step: number) => boolean,
): { step: number | null; where: string } {
  const label = (step: number) => plan.steps[step].label;
  const own = positions.stepsOf(rank)[0];
  if (own !== undefined) return { step: own, where: ` during step ${own} (${label(own)})` };
  const gate = gates.gateOf(rank);
  if (gate !== undefined) return { step: gate, where: ` while waiting at the gate of step ${gate} (${label(gate)})` };
  const running = [...positions.began.keys()].filter((i) => !finished(i));
  // Between a pair's gate and its first step: the unit whose gate opened last.
  const opened = [...gates.opened].sort((x, y) => y[1] - x[1])[0]?.[0];
  if (!running.length && opened === undefined) return { step: null, where: '' };
  const other = running.length ? Math.min(...running) : opened!;
  // A step the rank is in that others began first: it had not yet said it began it.
  if (takesPart(plan.steps[other], rank)) return { step: other, where: ` during step ${other} (${label(other)}), before it began it` };
  return { step: other, where: ` while idle, during step ${other} (${label(other)}), which it takes no part in` };
}

/**
 * Ranks at a pair's gate wait for every rank: once none has a step running, those not there yet
 * have the pair's timeout (and GATE_GRACE_MS) to come, or the run fails naming them.
 */
export class GateWatch {
  /** Since when ranks wait at a gate with no step running anywhere. */
  private idleSinceMs = 0;

  constructor(private readonly plan: Plan) {}

  /** The wait starts over (the ranks came, or the learner let a step go). */
  restart(nowMs: number): void {
    this.idleSinceMs = nowMs;
  }

  check(nowMs: number, gates: StepGates, positions: Watchdog, exited: ReadonlySet<number>): Overdue | null {
    const atGate = gates.atGateNow();
    if (!atGate.size || positions.anyRunning() || !positions.allJoined()) {
      this.idleSinceMs = nowMs;
      return null;
    }
    const gate = Math.min(...atGate.values());
    const step = (index: number) => this.plan.steps[index];
    const allowedMs = step(gate).timeoutMs + GATE_GRACE_MS;
    if (nowMs - this.idleSinceMs <= allowedMs) return null;
    const missing = Array.from({ length: this.plan.world }, (_, r) => r).filter((r) => !atGate.has(r) && !exited.has(r));
    if (!missing.length) return null;
    const last = (r: number) => {
      const entry = positions.flightOf(r).at(-1);
      return entry
        ? `, its last call ${describeEntry(entry)} of ${entry.step === null ? 'the line-up before the first step' : `step ${entry.step} (${step(entry.step).label})`}`
        : '';
    };
    const waiting = [...atGate.keys()].sort((a, b) => a - b);
    const s = (n: number) => (n > 1 ? 's' : '');
    return {
      rank: missing[0],
      step: gate,
      code: 'CLAB_GATE_TIMEOUT',
      message:
        `rank${s(missing.length)} ${missing.join(', ')} never reached the gate of step ${gate} (${step(gate).label}) within ${allowedMs} ms, ` +
        `while rank${s(waiting.length)} ${waiting.join(', ')} waited there and no step ran (${missing.map((r) => `rank ${r}${last(r)}`).join('; ')})`,
    };
  }
}
