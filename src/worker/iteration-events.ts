// How a step's timed iterations get their own start and end on nccl, where its loop is timed as a
// whole (nccl-tests' way, which bandwidth comes from): by running the iterations a second time,
// each between its own event pair, or by an event between each two inside the loop. Inside costs
// the loop the events' time, next to nothing beside the GPU's time per op where that is long;
// outside it costs the run a second pass, whose time is that of the loop. The rule must come out alike on
// every rank of a step (a rank that ran its op a second time would wait for peers that do not),
// so it reads the plan, never this rank's timings.

/**
 * From this many bytes (the step's bandwidth basis), the iterations are timed inside the loop. A
 * mark between two NCCL calls costs the GPU time per op, whatever the size: an event about 3–4.5 µs,
 * a one-thread kernel stamping the GPU's clock (what the addon puts there, where its data kernels
 * are loaded) 1.3–1.7 µs (native/nccl/nccl_execute.cc; all_reduce on 2 × H200, NCCL 2.28.3,
 * 2026-11-28: 256 MiB ×1.0014 with stamps, ×1.0037 with events). With events the rule was 512 MiB
 * (the sweep, 3 repeats: ×1.06 at 16 MiB … ×1.007 at 256 MiB, ×1.002 at 512 MiB); with stamps
 * 256 MiB costs less than 512 MiB did: 0.15–0.4 % of an op (all_reduce's 0.9 ms … gather's 0.38 ms),
 * and the sweep's 256 MiB steps still read 0.992–1.008 × nccl-tests' time per op, within the
 * machine's noise (bench/gpu/README.md). The second pass it saves is most
 * of the pass's time, the sizes doubling (256 MiB alone: 128 ms of the sweep's 0.32 s).
 */
export const EVENTS_IN_LOOP_FROM_BYTES = 256 * 2 ** 20;

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
