// Messages between the lab core and a rank process: discriminated by `type`, versioned, and
// validated on receipt on both sides.
import { z } from 'zod';
import { flightEntrySchema } from './flight.js';
import { timelineEventsSchema } from './timeline-event.js';
import { ncclStepInfoSchema } from './nccl-events.js';
import { planSchema } from '../plan/types.js';

export { timelineEventSchema, timelineEventsSchema, type TimelineEvent } from './timeline-event.js';

export const PROTOCOL_VERSION = 1;
const v = z.literal(PROTOCOL_VERSION);
const rank = z.number().int().min(0);

export const mismatchSchema = z.object({ index: z.number().int(), expected: z.string(), actual: z.string() });

export const rankStepResultSchema = z.object({
  step: z.number().int(),
  rank,
  /** error: the step failed on this rank and the run went on (a pair of a pairs step; see `error`). */
  verdict: z.enum(['pass', 'fail', 'none', 'error']),
  checked: z.number().int(),
  wrong: z.number().int(),
  mismatches: z.array(mismatchSchema),
  /** The output as a learner reads it, for small tensors and objects. */
  output: z.string().nullable(),
  /** This rank's input as a learner reads it, for small tensors (before the call; absent in older records). */
  input: z.string().nullable().optional(),
  /** Duration of each timed iteration, microseconds. */
  timesUs: z.array(z.number()),
  /** From the first timed iteration's start to the last one's end (µs); absent where nothing was timed. */
  spanUs: z.number().optional(),
  /**
   * nccl: the timed iterations ran once more as one loop between a single CUDA event pair, as
   * nccl-tests times them; that loop's duration (µs). Absent on cpu and where iters is 1.
   */
  loopUs: z.number().optional(),
  /**
   * nccl, with loopUs: the rank's host thread while it issued that loop: how long issuing took (µs),
   * and the page faults it took, the times it blocked in the kernel and the times it was preempted
   * meanwhile. A loop that lasted about as long as its issuing waited for the host (loop-host.ts).
   */
  loopHost: z
    .object({
      issueUs: z.number().nonnegative(),
      faults: z.number().int().nonnegative(),
      blocked: z.number().int().nonnegative(),
      preempted: z.number().int().nonnegative(),
    })
    .optional(),
  note: z.string().nullable(),
  /** Why the step failed on this rank while the run went on (verdict error): the code and the backend's message. */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** nccl with the lab's profiler plug-in: what NCCL chose for the step's calls on this rank (nccl-events.ts). */
  nccl: ncclStepInfoSchema.optional(),
});

export const backendNameSchema = z.enum(['cpu', 'nccl']);

export const coreToWorkerSchema = z.discriminatedUnion('type', [
  /** stepMode: wait for `next` before each step that pauses (learn/step-mode.ts), having sent `paused`. */
  z.object({
    type: z.literal('start'),
    v,
    runId: z.string(),
    rank,
    backend: backendNameSchema,
    plan: planSchema,
    stepMode: z.boolean().optional(),
  }),
  /** Step mode: run plan step `step` (the one this rank said it is paused before). */
  z.object({ type: z.literal('next'), v, step: z.number().int() }),
  /** A communicator's id from its rank 0: the run's (no step), or a pair's (the step that opens the pair). */
  z.object({ type: z.literal('comm-id'), v, id: z.string().min(1), step: z.number().int().optional() }),
  /** Every rank has reached the gate of `step` (a pair's first step): the pair may start. */
  z.object({ type: z.literal('gate-open'), v, step: z.number().int() }),
  z.object({ type: z.literal('abort'), v, reason: z.string() }),
  /** Every rank has said `done`: a rank that kept its communicator exits now, leaving it to the system. */
  z.object({ type: z.literal('leave'), v }),
]);

export const workerToCoreSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('unique-id'), v, rank, id: z.string().min(1), step: z.number().int().optional() }),
  /** This rank has reached the gate of `step` and waits for every other rank (pairs run one at a time). */
  z.object({ type: z.literal('gate'), v, rank, step: z.number().int() }),
  z.object({ type: z.literal('step-begin'), v, rank, step: z.number().int(), atNs: z.number() }),
  /** Step mode: this rank waits for `next` before running plan step `step`. */
  z.object({ type: z.literal('paused'), v, rank, step: z.number().int() }),
  /** The flight recorder: a communication call this rank is about to hand to the backend (sent before it does). */
  z.object({ type: z.literal('entered'), v, rank, entry: flightEntrySchema }),
  z.object({ type: z.literal('step-end'), v, rank, result: rankStepResultSchema, events: timelineEventsSchema }),
  z.object({ type: z.literal('log'), v, rank, text: z.string(), atNs: z.number() }),
  z.object({ type: z.literal('failed'), v, rank, step: z.number().int().nullable(), code: z.string(), message: z.string() }),
  z.object({ type: z.literal('done'), v, rank }),
]);

export type CoreToWorker = z.infer<typeof coreToWorkerSchema>;
export type WorkerToCore = z.infer<typeof workerToCoreSchema>;
export type RankStepResult = z.infer<typeof rankStepResultSchema>;
export type BackendName = z.infer<typeof backendNameSchema>;

/** Parses a message or throws an Error naming what was wrong with it. */
export function parseMessage<T>(schema: z.ZodType<T>, message: unknown, from: string): T {
  const r = schema.safeParse(message);
  if (r.success) return r.data;
  const first = r.error.issues[0];
  throw new Error(`invalid message from ${from}: ${first.path.join('.') || '(root)'}: ${first.message}`);
}
