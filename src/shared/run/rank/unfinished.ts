// What each rank was doing when a run failed or was stopped: the steps it had begun and not
// ended, as open slices from their start to the end of the run, named with the call its flight
// recorder says it was in. A hang is when a learner most needs to see where each rank waits, and
// those steps never send their own events.
import { describeEntry, type FlightEntry } from './flight.js';
import type { Plan } from '../../plan/types.js';
import type { TimelineEvent } from './protocol.js';

export interface InFlight {
  rank: number;
  step: number;
  /** When the rank began the step (its step-begin), CLOCK_MONOTONIC ns. */
  beganNs: number;
}

/**
 * One `unfinished` event per step in flight on a rank, up to `endNs`; its name is the step's label
 * and, where the rank's flight recorder has a call of that step, the call it was in.
 */
export function unfinishedEvents(
  plan: Plan,
  inFlight: InFlight[],
  flight: ReadonlyMap<number, readonly FlightEntry[]>,
  endNs: number,
): TimelineEvent[] {
  return inFlight.map(({ rank, step, beganNs }) => {
    const planStep = plan.steps[step];
    const call = [...(flight.get(rank) ?? [])].reverse().find((e) => e.step === step);
    return {
      rank,
      stream: planStep.stream,
      step,
      phase: 'unfinished',
      startNs: beganNs,
      endNs: Math.max(beganNs, endNs),
      bytes: 0,
      name: `${planStep.label} (unfinished${call ? `: in ${describeEntry(call)}` : ''})`,
    };
  });
}
