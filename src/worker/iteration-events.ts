// How a step's timed iterations get their own start and end on nccl, where its loop is timed as a
// whole (nccl-tests' way, which bandwidth comes from): by running the iterations a second time,
// each between its own event pair, or by an event between each two inside the loop. Inside costs
// the loop the events' time, nothing beside the GPU's time per op where that is long; outside it
// costs the run a second pass, whose time is that of the loop. The rule must come out alike on
// every rank of a step (a rank that ran its op a second time would wait for peers that do not),
// so it reads the plan, never this rank's timings.

/**
 * From this many bytes (the step's bandwidth basis), the events go inside the loop. A collective
 * of 16 MiB keeps a GPU busy for tens of µs per op on today's fastest links, where an event between
 * two costs it about a microsecond or less; below it, small messages bound by the host's issue of
 * each call would carry the host's event records too, and their second pass takes little time.
 */
export const EVENTS_IN_LOOP_FROM_BYTES = 16 * 2 ** 20;

export type IterationEvents = 'auto' | 'loop' | 'pass';

/** CLAB_ITERATION_EVENTS (loop: always inside, pass: always a second pass, auto or unset: by size), for comparing both. */
export function iterationEventsChoice(value: string | undefined): IterationEvents {
  if (value === undefined || value === '' || value === 'auto') return 'auto';
  if (value === 'loop' || value === 'pass') return value;
  throw new Error(`CLAB_ITERATION_EVENTS must be auto, loop or pass (got ${JSON.stringify(value)})`);
}

/** Whether a step moving `bytes` (its bandwidth basis, the same on every rank) reads its iterations' events inside its loop. */
export function eventsInLoop(choice: IterationEvents, bytes: number): boolean {
  if (choice !== 'auto') return choice === 'loop';
  return bytes >= EVENTS_IN_LOOP_FROM_BYTES;
}
