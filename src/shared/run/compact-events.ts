// A run's timeline events in a compact form for sending a saved run to the page: a column per
// field (arrays of numbers, strings as indices into one table) instead of an object per event
// with every key repeated. It carries exactly what the events' plain JSON carries, and its
// receiver checks every column as the run record schema checks every event.
import { timelineEventSchema, type TimelineEvent } from './protocol.js';
import { runRecordSchema, type RunRecord } from './record.js';
import { recordInconsistency } from './record-consistency.js';

const PHASES = timelineEventSchema.shape.phase.options;
type Phase = TimelineEvent['phase'];

export interface CompactEvents {
  count: number;
  /** Every name, algorithm and protocol, once. */
  strings: string[];
  rank: number[];
  stream: number[];
  step: number[];
  /** Index into strings. */
  name: number[];
  /** Index into the timeline event's phases, in the schema's order. */
  phase: number[];
  startNs: number[];
  endNs: number[];
  bytes: number[];
  /** The events with an NCCL channel (`at`: their indices, ascending) and their channels' fields. */
  channel: { at: number[]; id: number[]; algo: number[]; proto: number[]; iteration: number[] };
  /** The events with an NCCL proxy operation (few: the network's), each's fields as they are. */
  proxy?: { at: number[]; value: NonNullable<TimelineEvent['proxy']>[] };
}

export function encodeEvents(events: readonly TimelineEvent[]): CompactEvents {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const intern = (s: string) => {
    let i = index.get(s);
    if (i === undefined) index.set(s, (i = strings.push(s) - 1));
    return i;
  };
  const phaseIndex = new Map(PHASES.map((p, i) => [p, i]));
  const c: CompactEvents = {
    count: events.length,
    strings,
    rank: [],
    stream: [],
    step: [],
    name: [],
    phase: [],
    startNs: [],
    endNs: [],
    bytes: [],
    channel: { at: [], id: [], algo: [], proto: [], iteration: [] },
    proxy: { at: [], value: [] },
  };
  for (const [i, e] of events.entries()) {
    c.rank.push(e.rank);
    c.stream.push(e.stream);
    c.step.push(e.step);
    c.name.push(intern(e.name));
    c.phase.push(phaseIndex.get(e.phase)!);
    c.startNs.push(e.startNs);
    c.endNs.push(e.endNs);
    c.bytes.push(e.bytes);
    if (e.channel) {
      c.channel.at.push(i);
      c.channel.id.push(e.channel.id);
      c.channel.algo.push(intern(e.channel.algo));
      c.channel.proto.push(intern(e.channel.proto));
      c.channel.iteration.push(e.channel.iteration);
    }
    if (e.proxy) {
      c.proxy!.at.push(i);
      c.proxy!.value.push(e.proxy);
    }
  }
  return c;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * The events of a compact form, each checked as timelineEventSchema checks it: throws naming the
 * first column and element that is not what it must be (`events.rank[12]: expected …`).
 */
export function decodeEvents(value: unknown, path = 'events'): TimelineEvent[] {
  if (!isObject(value)) throw new Error(`${path}: expected the events' columns (an object)`);
  const count = value.count;
  if (!Number.isInteger(count) || (count as number) < 0) throw new Error(`${path}.count: expected an integer ≥ 0`);
  const n = count as number;
  const strings = value.strings;
  if (!Array.isArray(strings) || !strings.every((s) => typeof s === 'string'))
    throw new Error(`${path}.strings: expected an array of strings`);
  const column = (values: unknown, name: string, length: number, ok: (x: number) => boolean, what: string): number[] => {
    if (!Array.isArray(values) || values.length !== length) throw new Error(`${path}.${name}: expected an array of ${length} numbers`);
    for (let i = 0; i < length; i++)
      if (typeof values[i] !== 'number' || !ok(values[i])) throw new Error(`${path}.${name}[${i}]: expected ${what}`);
    return values as number[];
  };
  const int = (x: number) => Number.isInteger(x);
  const finite = (x: number) => Number.isFinite(x);
  const stringIndex = (x: number) => Number.isInteger(x) && x >= 0 && x < strings.length;
  const rank = column(value.rank, 'rank', n, (x) => int(x) && x >= 0, 'an integer ≥ 0');
  const stream = column(value.stream, 'stream', n, int, 'an integer');
  const step = column(value.step, 'step', n, int, 'an integer');
  const name = column(value.name, 'name', n, stringIndex, 'an index into strings');
  const phase = column(
    value.phase,
    'phase',
    n,
    (x) => int(x) && x >= 0 && x < PHASES.length,
    `an index into the phases (${PHASES.join(', ')})`,
  );
  const startNs = column(value.startNs, 'startNs', n, finite, 'a number');
  const endNs = column(value.endNs, 'endNs', n, finite, 'a number');
  const bytes = column(value.bytes, 'bytes', n, finite, 'a number');
  const ch = value.channel;
  if (!isObject(ch)) throw new Error(`${path}.channel: expected the channels' columns (an object)`);
  const at = column(
    ch.at,
    'channel.at',
    Array.isArray(ch.at) ? ch.at.length : -1,
    (x) => int(x) && x >= 0 && x < n,
    `an event index below ${n}`,
  );
  for (let i = 1; i < at.length; i++)
    if (at[i] <= at[i - 1]) throw new Error(`${path}.channel.at[${i}]: expected indices in ascending order`);
  const m = at.length;
  const id = column(ch.id, 'channel.id', m, int, 'an integer');
  const algo = column(ch.algo, 'channel.algo', m, stringIndex, 'an index into strings');
  const proto = column(ch.proto, 'channel.proto', m, stringIndex, 'an index into strings');
  const iteration = column(ch.iteration, 'channel.iteration', m, int, 'an integer');

  // Proxy operations: optional (a form without them has none), each checked by the event schema's own part.
  const px = value.proxy ?? { at: [], value: [] };
  if (!isObject(px) || !Array.isArray(px.value)) throw new Error(`${path}.proxy: expected the proxy operations' columns (an object)`);
  const proxyAt = column(px.at, 'proxy.at', px.value.length, (x) => int(x) && x >= 0 && x < n, `an event index below ${n}`);
  const proxySchema = timelineEventSchema.shape.proxy.unwrap();
  const proxies = px.value.map((v, j) => {
    const r = proxySchema.safeParse(v);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new Error(`${path}.proxy.value[${j}]${issue.path.map((k) => `.${String(k)}`).join('')}: ${issue.message}`);
    }
    return r.data;
  });

  const events: TimelineEvent[] = new Array(n);
  for (let i = 0; i < n; i++) {
    events[i] = {
      rank: rank[i],
      stream: stream[i],
      step: step[i],
      name: strings[name[i]] as string,
      phase: PHASES[phase[i]] as Phase,
      startNs: startNs[i],
      endNs: endNs[i],
      bytes: bytes[i],
    };
  }
  for (let j = 0; j < m; j++)
    events[at[j]].channel = { id: id[j], algo: strings[algo[j]] as string, proto: strings[proto[j]] as string, iteration: iteration[j] };
  proxies.forEach((p, j) => (events[proxyAt[j]].proxy = p));
  return events;
}

/** A run record as `clab serve` sends a saved run to the page: the record without its events, and its events compact. */
export interface CompactRecord {
  record: Omit<RunRecord, 'events'> & { events: [] };
  events: CompactEvents;
}

export function compactRecord(record: RunRecord): CompactRecord {
  return { record: { ...record, events: [] }, events: encodeEvents(record.events) };
}

/**
 * The run record a compact form holds, checked as runRecordSchema checks a whole record (its
 * parts by the schema, its events column by column, then how they fit together): throws naming
 * the JSON path of the first problem (`events.rank[12]: expected …`).
 */
export function recordFromCompact(value: unknown): RunRecord {
  const parts = runRecordSchema.safeParse((value as { record?: unknown } | null)?.record);
  if (!parts.success) {
    const i = parts.error.issues[0];
    throw new Error(`record.${i.path.join('.')}: ${i.message}`);
  }
  const record = { ...parts.data, events: decodeEvents((value as { events?: unknown }).events) };
  const problem = recordInconsistency(record);
  if (problem) throw new Error(`${problem.path.join('.')}: ${problem.message}`);
  return record;
}
