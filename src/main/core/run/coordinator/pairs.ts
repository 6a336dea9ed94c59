// Pairs of a pair matrix each on a communicator of their own: a pair's id goes to the pair's other
// rank only, the run's (or a compare variant's) to every other rank. And the cell each pairs step
// shows, from the output its ranks printed between its gate and the next (pair-cells.ts).
import type { Plan } from '../../../../shared/plan/types.js';
import type { BackendName } from '../../../../shared/run/rank/protocol.js';
import type { LogLine, StepRecord } from '../../../../shared/run/record/record.js';
import { pairCells } from '../pair-cells.js';

/** The ranks a communicator id from `rank` (for `step`, where a pair or a compare variant has its own) goes to. */
export function commIdTargets(plan: Plan, rank: number, step: number | undefined): number[] {
  const a = step === undefined ? null : plan.steps[step]?.action;
  if (a?.kind === 'pair') return [rank === a.from ? a.to : a.from];
  return Array.from({ length: plan.world }, (_, r) => r).filter((r) => r !== rank);
}

/**
 * `steps` with each pairs step's cell (transport, error, hints): `opened` holds when each pair's
 * gate opened (ns), which is where its window of output begins; the next gate, or the end, closes it.
 */
export function withPairCells(
  plan: Plan,
  steps: StepRecord[],
  logs: readonly LogLine[],
  opened: ReadonlyMap<number, number>,
  backend: BackendName,
): StepRecord[] {
  if (!plan.pairs.length) return steps;
  const order = [...opened].sort((x, y) => x[1] - y[1]);
  const windows = new Map(order.map(([step, startNs], i) => [step, { startNs, endNs: order[i + 1]?.[1] ?? Number.MAX_SAFE_INTEGER }]));
  const cells = pairCells(plan, steps, logs, windows, backend);
  return steps.map((s) => {
    const cell = cells.get(s.index);
    return cell ? { ...s, pair: cell } : s;
  });
}
