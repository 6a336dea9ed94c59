// Ranks on other hosts: the messages of the link between the core and a `clab worker` (around the
// rank protocol's own, which travel inside them unchanged), what the record keeps of each host,
// the clock offset from a ping exchange, and where hosts differ. Pure; framing, hashing and
// sockets live in src/main/core/hosts.
import { z } from 'zod';
import { coreToWorkerSchema, PROTOCOL_VERSION, workerToCoreSchema } from '../rank/protocol.js';
import { environmentSchema, type Environment, type HostRecord } from '../record/record.js';

/**
 * The link's own version: framing and handshake. The rank protocol's version is checked beside it.
 * 2: both ends prove the token over both nonces, and every later frame is sealed (hosts/session.ts).
 */
export const LINK_VERSION = 2;
/** A frame before the worker has proved it holds the token: small (the handshake's messages only). */
export const HANDSHAKE_FRAME_BYTES = 16 * 1024;
/** Any frame after: the largest a plan (100 000 steps) or a step's events can reasonably make. */
export const LINK_FRAME_BYTES = 256 * 1024 * 1024;
/** The longest line of a rank's output a worker relays; a longer one is cut. */
export const OUTPUT_LINE_CHARS = 16 * 1024;
/** The longest account of a rank's invalid message a worker relays. */
export const INVALID_MESSAGE_CHARS = 4000;

/**
 * A name from the wire (a host's id or name, a run id): printable, no whitespace or control or
 * format character, bounded, so it can be logged as it is.
 */
export const wireName = (max: number, min = 1) =>
  z
    .string()
    .min(min)
    .max(max)
    .regex(/^[^\p{C}\p{Z}\s]*$/u, 'expected printable characters without spaces or controls');

/** Who a host is: hostname and boot id (one running system), unless a test or container names itself. */
export const hostIdentitySchema = z.object({ id: wireName(256), name: wireName(256), bootId: wireName(64, 0) });
export type HostIdentity = z.infer<typeof hostIdentitySchema>;

/** A whole number from the wire, bounded. */
const wholeNumber = (min: number, max: number) => z.number().int().min(min).max(max);

/** A nonce or a MAC: 32 bytes, hex. */
const hex32 = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 hex digits');

/** Worker → core, first: who it is and its fresh nonce (no proof yet). The nonce is optional only so an older worker gets the version line. */
export const helloSchema = z.object({
  type: z.literal('hello'),
  link: z.number().int(),
  protocol: z.number().int(),
  nonce: hex32.optional(),
  rank: wholeNumber(0, 1 << 20),
  world: wholeNumber(1, 1 << 20),
  localRank: wholeNumber(0, 1 << 20),
  device: wholeNumber(0, 1 << 16),
  host: hostIdentitySchema,
  pid: wholeNumber(0, 2 ** 32),
});
/** Core → worker: its fresh nonce, the run, and its proof: HMAC-SHA256(token, proofText('core', …)). */
export const challengeSchema = z.object({ type: z.literal('challenge'), nonce: hex32, runId: wireName(128), mac: hex32 });
/** Worker → core: its proof, HMAC-SHA256(token, proofText('worker', …)), once the core's held. */
export const proofSchema = z.object({ type: z.literal('proof'), mac: hex32 });
/** Core → worker: admitted; the backend tells the worker what environment to read. */
export const welcomeSchema = z.object({ type: z.literal('welcome'), runId: wireName(128), backend: z.enum(['cpu', 'nccl']) });
/** Either side: why the link is refused or ends; the other side prints it (controls made visible). */
export const refusedSchema = z.object({ type: z.literal('refused'), reason: z.string().max(2000) });

/** Core → worker after welcome: a clock probe; the worker answers at once with its own clock. */
export const pingSchema = z.object({ type: z.literal('ping'), seq: wholeNumber(0, 1000) });
export const pongSchema = z.object({ type: z.literal('pong'), seq: wholeNumber(0, 1000), workerNs: z.number() });
/** Worker → core after the pings: the host's environment, read on the host, and where it keeps the rank's output (`--log-dir`). */
export const hostEnvironmentSchema = z.object({
  type: z.literal('environment'),
  environment: environmentSchema,
  rankLog: z.string().max(4096).optional(),
});
/** Either way, every second: the link is alive (a cut cable closes nothing). */
export const beatSchema = z.object({ type: z.literal('beat') });

/** After the join, core → worker: the rank protocol's messages, and kill (the core gives the rank up). */
export const coreLinkSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('m'), m: coreToWorkerSchema }),
  z.object({ type: z.literal('kill') }),
  pingSchema,
  beatSchema,
  welcomeSchema,
  challengeSchema,
  refusedSchema,
]);

/** After the join, worker → core: the rank's messages, its output lines, and how it ended. */
export const workerLinkSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('m'), m: workerToCoreSchema }),
  z.object({ type: z.literal('out'), line: z.string().max(OUTPUT_LINE_CHARS) }),
  /** The rank sent something the rank protocol does not allow (seen by its worker). */
  z.object({ type: z.literal('invalid'), message: z.string().max(INVALID_MESSAGE_CHARS) }),
  z.object({ type: z.literal('exit'), code: z.number().int().nullable(), signal: z.string().max(32).nullable() }),
  helloSchema,
  proofSchema,
  pongSchema,
  hostEnvironmentSchema,
  beatSchema,
  refusedSchema,
]);

export type CoreLinkMessage = z.infer<typeof coreLinkSchema>;
export type WorkerLinkMessage = z.infer<typeof workerLinkSchema>;
export type Hello = z.infer<typeof helloSchema>;

/**
 * What each end's proof covers: who proves (so one end's proof is never the other's), both nonces
 * (so neither can be replayed from another session), the run, and everything the hello claimed
 * (so none of it can be swapped on the way).
 */
export function proofText(role: 'core' | 'worker', hello: Hello, coreNonce: string, runId: string): string {
  return [
    `clab link ${LINK_VERSION}`,
    role,
    hello.nonce ?? '',
    coreNonce,
    runId,
    hello.rank,
    hello.world,
    hello.localRank,
    hello.device,
    hello.host.id,
    hello.host.name,
    hello.host.bootId,
    hello.pid,
    hello.link,
    hello.protocol,
  ].join('\n');
}

/** The version the core and the worker must share: the link's and the rank protocol's. */
export const versionMismatch = (hello: Pick<Hello, 'link' | 'protocol'>): string | null =>
  hello.link !== LINK_VERSION || hello.protocol !== PROTOCOL_VERSION
    ? `protocol version mismatch: the worker speaks link ${hello.link} / rank protocol ${hello.protocol}, the core link ${LINK_VERSION} / rank protocol ${PROTOCOL_VERSION}; use the same clab on both`
    : null;

/** One ping: when the core sent it and heard the answer (its clock), and the worker's clock between. */
export interface ClockSample {
  sentNs: number;
  workerNs: number;
  receivedNs: number;
}

/**
 * NTP's estimate from the sample of smallest round trip: the worker read its clock halfway through
 * the round trip, give or take half of it. offsetNs is the worker's clock minus the core's:
 * an event at t on the worker is at t - offsetNs on the core's clock.
 */
export function clockOffset(samples: readonly ClockSample[]): { offsetNs: number; errorNs: number; samples: number } {
  if (!samples.length) throw new Error('no clock samples');
  const best = samples.reduce((a, b) => (b.receivedNs - b.sentNs < a.receivedNs - a.sentNs ? b : a));
  const rtt = best.receivedNs - best.sentNs;
  return { offsetNs: Math.round(best.workerNs - (best.sentNs + rtt / 2)), errorNs: Math.ceil(rtt / 2), samples: samples.length };
}

/** What a record says of hosts that differ: versions of the libraries, the GPU models, the driver. */
export function hostDifferences(hosts: readonly Pick<HostRecord, 'name' | 'environment'>[]): string[] {
  if (hosts.length < 2) return [];
  const warnings: string[] = [];
  const differ = (what: string, value: (e: Environment) => string | undefined) => {
    const by = new Map<string, string[]>();
    for (const h of hosts) {
      const v = value(h.environment) ?? 'unknown';
      by.set(v, [...(by.get(v) ?? []), h.name]);
    }
    if (by.size > 1) warnings.push(`hosts differ in ${what}: ${[...by].map(([v, names]) => `${v} on ${names.join(', ')}`).join('; ')}`);
  };
  const keys = new Set(hosts.flatMap((h) => Object.keys(h.environment.versions)));
  for (const key of [...keys].sort()) differ(`${key} version`, (e) => e.versions[key]);
  differ('GPUs', (e) => (e.gpus.length ? e.gpus.map((g) => g.name).join(', ') : 'none'));
  differ('node', (e) => e.node);
  return warnings;
}

/** The ranks of each host, in rank order of their first rank: how the pair matrix and the trace group them. */
export function ranksByHost(hosts: readonly Pick<HostRecord, 'name' | 'ranks'>[] | undefined): { name: string; ranks: number[] }[] {
  return (hosts ?? []).map((h) => ({ name: h.name, ranks: [...h.ranks].sort((a, b) => a - b) })).sort((a, b) => a.ranks[0] - b.ranks[0]);
}
