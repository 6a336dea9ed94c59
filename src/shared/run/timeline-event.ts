// One timeline event (an op's slice on a rank's stream or host thread), and the check of a run's
// events as a whole. A record holds 100 000 events and more: checking each with the schema takes
// most of the time a saved run takes to open, so an array whose events are all in the form the
// schema gives (plain objects with its keys and nothing else) is checked by hand, field by field,
// with the schema's rules; any other array is left to the schema, which then gives the same value
// and the same issues (path and message) as ever.
import { z } from 'zod';

export const timelineEventSchema = z.object({
  rank: z.number().int().min(0),
  stream: z.number().int(),
  step: z.number().int(),
  name: z.string(),
  /**
   * On the rank's stream: warmup, timed (one per iteration), loop (the timed iterations run as one
   * loop timed as a whole, nccl, see loopUs), check (the extra run whose output is checked), block
   * (a compare block's span). On the rank's host thread (the timeline's host lane): fill (making
   * and filling buffers) and verify (comparing outputs with their expected values).
   */
  // data-fill, data-check: the backend making a step's inputs and checking its outputs on the stream (the GPU's data kernels).
  // unfinished: a step in flight when the run failed (open up to the failure); channel: one NCCL channel's kernel in a timed iteration (`channel` says which), from the profiler plug-in;
  // proxy: one operation of NCCL's proxy thread where the network carries the data (`proxy` says which), from the profiler plug-in.
  phase: z.enum([
    'warmup',
    'loop',
    'timed',
    'check',
    'block',
    'fill',
    'verify',
    'data-fill',
    'data-check',
    'unfinished',
    'channel',
    'proxy',
  ]),
  /** CLOCK_MONOTONIC nanoseconds, shared by all ranks on a host. */
  startNs: z.number(),
  endNs: z.number(),
  bytes: z.number(),
  /** A channel slice: NCCL's channel, the algorithm and protocol of its call, and the timed iteration. */
  channel: z.object({ id: z.number().int(), algo: z.string(), proto: z.string(), iteration: z.number().int() }).optional(),
  /**
   * A proxy slice: NCCL's channel, the peer, send or receive, the steps it ran and the bytes they
   * moved, the timed iteration, and its steps' time per wait (µs: gpu, peer, network, flush).
   */
  proxy: z
    .object({
      channel: z.number().int(),
      peer: z.number().int(),
      send: z.boolean(),
      steps: z.number().int(),
      bytes: z.number(),
      iteration: z.number().int(),
      waitUs: z.object({ gpu: z.number(), peer: z.number(), network: z.number(), flush: z.number() }),
    })
    .optional(),
});

export type TimelineEvent = z.infer<typeof timelineEventSchema>;

const eventArraySchema = z.array(timelineEventSchema);
const PHASES: ReadonlySet<unknown> = new Set(timelineEventSchema.shape.phase.options);
/** The keys the hand check knows, in the schema's order (a test holds them to the schema's shape). */
export const EVENT_KEYS = ['rank', 'stream', 'step', 'name', 'phase', 'startNs', 'endNs', 'bytes', 'channel', 'proxy'] as const;
export const CHANNEL_KEYS = ['id', 'algo', 'proto', 'iteration'] as const;
export const PROXY_KEYS = ['channel', 'peer', 'send', 'steps', 'bytes', 'iteration', 'waitUs'] as const;
export const WAIT_KEYS = ['gpu', 'peer', 'network', 'flush'] as const;
/** Every key but the two optional ones (channel, proxy). */
const REQUIRED_KEYS = EVENT_KEYS.length - 2;

// z.number(): finite; .int(): a safe integer.
const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isInt = (x: unknown): x is number => Number.isSafeInteger(x);

/** A plain object (as JSON.parse and structured clone make them) with exactly `keys` own enumerable keys. */
function plainWithKeys(x: unknown, keys: number): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && Object.getPrototypeOf(x) === Object.prototype && Object.keys(x).length === keys;
}

function isChannel(c: unknown): boolean {
  return (
    plainWithKeys(c, CHANNEL_KEYS.length) && isInt(c.id) && typeof c.algo === 'string' && typeof c.proto === 'string' && isInt(c.iteration)
  );
}

function isProxy(p: unknown): boolean {
  if (!plainWithKeys(p, PROXY_KEYS.length)) return false;
  const w = p.waitUs;
  return (
    isInt(p.channel) &&
    isInt(p.peer) &&
    typeof p.send === 'boolean' &&
    isInt(p.steps) &&
    isNumber(p.bytes) &&
    isInt(p.iteration) &&
    plainWithKeys(w, WAIT_KEYS.length) &&
    isNumber(w.gpu) &&
    isNumber(w.peer) &&
    isNumber(w.network) &&
    isNumber(w.flush)
  );
}

/** One event as the schema would give it back unchanged: valid, and no key it would drop or fill in. */
function isCanonicalEvent(e: unknown): e is TimelineEvent {
  if (typeof e !== 'object' || e === null) return false;
  const o = e as Record<string, unknown>;
  const keys = REQUIRED_KEYS + (o.channel !== undefined ? 1 : 0) + (o.proxy !== undefined ? 1 : 0);
  return (
    plainWithKeys(o, keys) &&
    isInt(o.rank) &&
    o.rank >= 0 &&
    isInt(o.stream) &&
    isInt(o.step) &&
    typeof o.name === 'string' &&
    PHASES.has(o.phase) &&
    isNumber(o.startNs) &&
    isNumber(o.endNs) &&
    isNumber(o.bytes) &&
    (o.channel === undefined || isChannel(o.channel)) &&
    (o.proxy === undefined || isProxy(o.proxy))
  );
}

/**
 * The events, when every one is valid and in the schema's own form (then they are the very
 * objects given, in a new array); else null, and the schema decides.
 */
export function canonicalEvents(value: unknown): TimelineEvent[] | null {
  if (!Array.isArray(value)) return null;
  for (let i = 0; i < value.length; i++) if (!isCanonicalEvent(value[i])) return null;
  return value.slice() as TimelineEvent[];
}

/**
 * A run's events: what `z.array(timelineEventSchema)` accepts, with the same value and the same
 * issues, checked by hand where the events are in the schema's form (canonicalEvents).
 */
export const timelineEventsSchema = z.unknown().transform((value, ctx): TimelineEvent[] => {
  const fast = canonicalEvents(value);
  if (fast) return fast;
  const parsed = eventArraySchema.safeParse(value);
  if (parsed.success) return parsed.data;
  ctx.issues.push(...(parsed.error.issues as typeof ctx.issues));
  return z.NEVER;
});
