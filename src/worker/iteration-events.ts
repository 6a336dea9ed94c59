// How a step's timed iterations get their own start and end on nccl, where its loop is timed as a
// whole (nccl-tests' way, which bandwidth comes from): by running the iterations a second time,
// each between its own event pair, or by an event between each two inside the loop. Inside costs
// the loop the events' time, next to nothing beside the GPU's time per op where that is long;
// outside it costs the run a second pass, whose time is that of the loop. The rule must come out alike on
// every rank of a step (a rank that ran its op a second time would wait for peers that do not),
// so it reads the plan, never this rank's timings.

/**
 * From this many bytes (the step's bandwidth basis), the events go inside the loop. An event
 * between two NCCL calls costs the GPU about 4.5 µs per op, whatever the size (all_reduce and eight
 * more collectives on 2 × H200, NCCL 2.28.3, the sweep with CLAB_ITERATION_EVENTS=pass beside it,
 * 3 repeats: time per op ×1.06 at 16 MiB, ×1.035 at 32 MiB, ×1.02 at 64 MiB, ×1.009 at 128 MiB,
 * ×1.007 at 256 MiB, ×1.002 at 512 MiB, ×1.001 at 1 GiB; both in a second pass read ×1.003
 * below 16 MiB, the machine's noise). So only where an op lasts milliseconds, within that noise;
 * the second pass it saves is most of the pass's time, the sizes doubling.
 */
export const EVENTS_IN_LOOP_FROM_BYTES = 512 * 2 ** 20;

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
