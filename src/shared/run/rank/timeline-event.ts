// One timeline event (an op's slice on a rank's stream or host thread), and the check of a run's
// events as a whole: a record holds 100 000 events and more, each valid one checked by hand with
// the schema's rules (checked-array.ts), any other by the schema.
import { z } from 'zod';
import { checkedArray, isInt, isNumber, isObject, isString } from './checked-array.js';

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

/** Phases of work on a rank's streams: a compare block's span is theirs (host work and nested blocks are not). */
export const STREAM_PHASES: ReadonlySet<TimelineEvent['phase']> = new Set(['warmup', 'loop', 'timed', 'check']);

const PHASES: ReadonlySet<unknown> = new Set(timelineEventSchema.shape.phase.options);
/** The keys the hand check knows, in the schema's order (a test holds them to the schema's shape). */
export const EVENT_KEYS = ['rank', 'stream', 'step', 'name', 'phase', 'startNs', 'endNs', 'bytes', 'channel', 'proxy'] as const;
export const CHANNEL_KEYS = ['id', 'algo', 'proto', 'iteration'] as const;
export const PROXY_KEYS = ['channel', 'peer', 'send', 'steps', 'bytes', 'iteration', 'waitUs'] as const;
export const WAIT_KEYS = ['gpu', 'peer', 'network', 'flush'] as const;

type Channel = NonNullable<TimelineEvent['channel']>;
type Proxy = NonNullable<TimelineEvent['proxy']>;

function channelByHand(x: unknown): Channel | null {
  if (!isObject(x)) return null;
  const { id, algo, proto, iteration } = x;
  return isInt(id) && isString(algo) && isString(proto) && isInt(iteration) ? { id, algo, proto, iteration } : null;
}

function proxyByHand(x: unknown): Proxy | null {
  if (!isObject(x) || !isObject(x.waitUs)) return null;
  const { channel, peer, send, steps, bytes, iteration } = x;
  const { gpu, peer: peerWait, network, flush } = x.waitUs;
  const valid =
    isInt(channel) &&
    isInt(peer) &&
    typeof send === 'boolean' &&
    isInt(steps) &&
    isNumber(bytes) &&
    isInt(iteration) &&
    isNumber(gpu) &&
    isNumber(peerWait) &&
    isNumber(network) &&
    isNumber(flush);
  return valid ? { channel, peer, send, steps, bytes, iteration, waitUs: { gpu, peer: peerWait, network, flush } } : null;
}

/** The copy the schema would give of a valid event (see checked-array.ts); null where the schema must decide. */
export function eventByHand(x: unknown): TimelineEvent | null {
  if (!isObject(x)) return null;
  const { rank, stream, step, name, phase, startNs, endNs, bytes } = x;
  const valid =
    isInt(rank) &&
    rank >= 0 &&
    isInt(stream) &&
    isInt(step) &&
    isString(name) &&
    PHASES.has(phase) &&
    isNumber(startNs) &&
    isNumber(endNs) &&
    isNumber(bytes);
  if (!valid) return null;
  const e: TimelineEvent = { rank, stream, step, name, phase: phase as TimelineEvent['phase'], startNs, endNs, bytes };
  if ('channel' in x) {
    const channel = x.channel === undefined ? undefined : channelByHand(x.channel);
    if (channel === null) return null;
    e.channel = channel;
  }
  if ('proxy' in x) {
    const proxy = x.proxy === undefined ? undefined : proxyByHand(x.proxy);
    if (proxy === null) return null;
    e.proxy = proxy;
  }
  return e;
}

/** A run's events: what `z.array(timelineEventSchema)` accepts, with the same value and issues (checked-array.ts). */
export const timelineEventsSchema = checkedArray(timelineEventSchema, eventByHand);
