// Messages between the lab core and a rank process: discriminated by `type`, versioned, and
// validated on receipt on both sides.
import { z } from 'zod';
import { flightEntrySchema } from './flight.js';
import { timelineEventsSchema } from './timeline-event.js';
import { rankStepResultSchema } from './rank-result.js';
import { planSchema } from '../../plan/types.js';
import { topologySchema } from './topology.js';

export { timelineEventSchema, timelineEventsSchema, type TimelineEvent } from './timeline-event.js';
export { mismatchSchema, rankStepResultSchema, rankStepResultsSchema, type RankStepResult } from './rank-result.js';

export const PROTOCOL_VERSION = 1;
const v = z.literal(PROTOCOL_VERSION);
const rank = z.number().int().min(0);

export const backendNameSchema = z.enum(['cpu', 'nccl']);

/** Variables a rank reads only after `start`, which an early rank (bin/early-ranks.cjs) is given then. */
export const START_ENV_NAME = /^(NCCL_|CLAB_)[A-Z0-9_]{1,96}$/;
const envName = z.string().regex(START_ENV_NAME);
export const startEnvSchema = z.object({
  set: z.record(envName, z.string().max(4096)).refine((o) => Object.keys(o).length <= 256, 'at most 256 variables'),
  unset: z.array(envName).max(256),
});

export const coreToWorkerSchema = z.discriminatedUnion('type', [
  /**
   * stepMode: wait for `next` before each step that pauses (learn/step-mode.ts), having sent
   * `paused`. env: what to set in this rank's environment before anything else (an early rank's).
   * topology: send the GPUs' topology as this rank sees them once it has joined (the record's).
   */
  z.object({
    type: z.literal('start'),
    v,
    runId: z.string(),
    rank,
    backend: backendNameSchema,
    plan: planSchema,
    stepMode: z.boolean().optional(),
    env: startEnvSchema.optional(),
    topology: z.boolean().optional(),
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
  /** The GPUs as this rank sees them, read once it joined: sent where `start` asked for it. */
  z.object({ type: z.literal('topology'), v, rank, topology: topologySchema }),
]);

export type CoreToWorker = z.infer<typeof coreToWorkerSchema>;
export type WorkerToCore = z.infer<typeof workerToCoreSchema>;
export type BackendName = z.infer<typeof backendNameSchema>;
export type StartEnv = z.infer<typeof startEnvSchema>;

/**
 * Parses a message or throws an Error naming what was wrong with it. `jitless` where the process
 * parses that schema a few times only (a rank's messages from the core: start, comm-id, leave):
 * the fast path zod compiles at a schema's first parse costs more than it saves there (a cpu
 * sweep's `start` 5.8–12.7 ms against 2.4–4.3 ms jitless, 2026-11-28).
 */
export function parseMessage<T>(schema: z.ZodType<T>, message: unknown, from: string, how: { jitless?: boolean } = {}): T {
  const r = schema.safeParse(message, how.jitless ? { jitless: true } : undefined);
  if (r.success) return r.data;
  const first = r.error.issues[0];
  throw new Error(`invalid message from ${from}: ${first.path.join('.') || '(root)'}: ${first.message}`);
}
