// Ranks on other hosts: the messages of the link between the core and a `clab worker` (around the
// rank protocol's own, which travel inside them unchanged), what the record keeps of each host,
// the clock offset from a ping exchange, and where hosts differ. Pure; framing, hashing and
// sockets live in src/main/core/hosts.
import { z } from 'zod';
import { coreToWorkerSchema, PROTOCOL_VERSION, workerToCoreSchema } from './protocol.js';
import { environmentSchema, type Environment, type HostRecord } from './record.js';

/** The link's own version: framing and handshake. The rank protocol's version is checked beside it. */
export const LINK_VERSION = 1;
/** A frame before the worker has proved it holds the token: small (the handshake's messages only). */
export const HANDSHAKE_FRAME_BYTES = 16 * 1024;
/** Any frame after: the largest a plan (100 000 steps) or a step's events can reasonably make. */
export const LINK_FRAME_BYTES = 256 * 1024 * 1024;

/** Who a host is: hostname and boot id (one running system), unless a test or container names itself. */
export const hostIdentitySchema = z.object({ id: z.string().min(1).max(256), name: z.string().max(256), bootId: z.string().max(64) });
export type HostIdentity = z.infer<typeof hostIdentitySchema>;

const hex = z
  .string()
  .regex(/^[0-9a-f]+$/)
  .max(256);

/** Worker → core, first: who it is (no proof yet). */
export const helloSchema = z.object({
  type: z.literal('hello'),
  link: z.number().int(),
  protocol: z.number().int(),
  rank: z.number().int().min(0),
  world: z.number().int().min(1),
  localRank: z.number().int().min(0),
  device: z.number().int().min(0),
  host: hostIdentitySchema,
  pid: z.number().int(),
});
/** Core → worker: a fresh nonce to answer with HMAC-SHA256(token, proofText(...)). */
export const challengeSchema = z.object({ type: z.literal('challenge'), nonce: hex });
/** Worker → core: the answer. */
export const proofSchema = z.object({ type: z.literal('proof'), mac: hex });
/** Core → worker: admitted; the backend tells the worker what environment to read. */
export const welcomeSchema = z.object({ type: z.literal('welcome'), runId: z.string(), backend: z.enum(['cpu', 'nccl']) });
/** Either side: why the link is refused or ends; the other side prints it. */
export const refusedSchema = z.object({ type: z.literal('refused'), reason: z.string().max(2000) });

/** Core → worker after welcome: a clock probe; the worker answers at once with its own clock. */
export const pingSchema = z.object({ type: z.literal('ping'), seq: z.number().int() });
export const pongSchema = z.object({ type: z.literal('pong'), seq: z.number().int(), workerNs: z.number() });
/** Worker → core after the pings: the host's environment, read on the host. */
export const hostEnvironmentSchema = z.object({ type: z.literal('environment'), environment: environmentSchema });
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
  z.object({ type: z.literal('out'), line: z.string() }),
  /** The rank sent something the rank protocol does not allow (seen by its worker). */
  z.object({ type: z.literal('invalid'), message: z.string() }),
  z.object({ type: z.literal('exit'), code: z.number().int().nullable(), signal: z.string().nullable() }),
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

/** What the proof covers: the nonce and everything the hello claimed, so none of it can be swapped. */
export function proofText(nonce: string, hello: Hello): string {
  return [nonce, hello.rank, hello.world, hello.localRank, hello.device, hello.host.id, hello.link, hello.protocol].join('\n');
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
