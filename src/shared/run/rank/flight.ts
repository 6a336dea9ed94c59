// The flight recorder: the communication calls a rank has entered, numbered in its own order
// (#1 is the line-up barrier every rank makes before the first step). The rank process records
// each call as it hands it to the backend and tells the core at once; when a step hangs or the
// ranks disagree, the core says which call each rank is in, so a mismatch reads as
// "rank 0 waits in broadcast(root 0, 3 × float32 = 12 B, #2); rank 1 waits in all_reduce(sum, …, #2)".
// Pure: shared by the rank process, the core and the tests.
import { z } from 'zod';
import { DTYPES, DTYPE_INFO } from '../../data/dtypes.js';
import { REDOPS } from '../../data/reduce.js';
import { formatBytes } from '../../data/units.js';

const rank = z.number().int().min(0);

export const flightCallSchema = z.object({
  /** The backend's op: all_reduce, broadcast, send, recv, barrier, … */
  op: z.string().max(64),
  dtype: z.enum(DTYPES).optional(),
  /** Elements of the call as the backend gets it (per rank: all_gather's count is one rank's part). */
  count: z.number().int().min(0).optional(),
  redop: z.enum(REDOPS).optional(),
  root: rank.optional(),
  /** send: the rank sent to; recv: the rank received from. */
  peer: rank.optional(),
});

export const flightEntrySchema = flightCallSchema.extend({
  /** This rank's number for the call's first repetition; a call repeated n times takes seq … seq+n−1. */
  seq: z.number().int().min(1),
  repeat: z.number().int().min(1),
  /** The plan step it belongs to; null for the line-up barrier before the first step. */
  step: z.number().int().min(0).nullable(),
  stream: z.number().int().min(0),
  /** A group's calls (sends and receives issued together). */
  items: z.array(flightCallSchema).max(4096).optional(),
});

export type FlightCall = z.infer<typeof flightCallSchema>;
export type FlightEntry = z.infer<typeof flightEntrySchema>;

/** Entries a rank keeps and the core keeps per rank: enough to see where ranks parted. */
export const FLIGHT_ENTRIES_KEPT = 32;

function describeCall(c: FlightCall): string {
  const parts: string[] = [];
  if (c.redop) parts.push(c.redop);
  if (c.root !== undefined) parts.push(`root ${c.root}`);
  if (c.peer !== undefined) parts.push(`${c.op === 'recv' ? 'from' : 'to'} ${c.peer}`);
  if (c.dtype && c.count !== undefined) parts.push(`${c.count} × ${c.dtype} = ${formatBytes(c.count * DTYPE_INFO[c.dtype].bytes)}`);
  return `${c.op}${parts.length ? `(${parts.join(', ')}` : '('}`;
}

/** "broadcast(root 0, 3 × float32 = 12 B, #7)"; a repeated call "all_reduce(sum, …, #7–#16)". */
export function describeEntry(e: FlightEntry): string {
  const seq = e.repeat > 1 ? `#${e.seq}–#${e.seq + e.repeat - 1}` : `#${e.seq}`;
  const head = e.items ? `group(${e.items.map((i) => `${describeCall(i)})`).join(', ')}` : describeCall(e);
  return `${head}${head.endsWith('(') ? '' : ', '}${seq})`;
}
