// A saved run as the doors send it to the page: the record without its events as JSON, then its
// events as binary columns (a typed array per field, names as indices into one table of strings).
// The page reads the columns where they lie instead of parsing 100 000 objects' worth of JSON, and
// checks every column as the run record's schema checks every event.
//
//   [u32 LE: n, the header's length][header: n bytes of UTF-8 JSON][zeros to a multiple of 8]
//   [each event column: count values][zeros to 8] … [each channel column: channels values][zeros to 8] …
import { timelineEventSchema, type TimelineEvent } from '../rank/protocol.js';
import { recordInconsistency } from './record-consistency.js';
import { runRecordSchema, type RunRecord } from './record.js';

/** UTF-8 both ways: TextEncoder/TextDecoder where this runs (neither is in the shared layer's library). */
export interface Utf8 {
  encode(text: string): Uint8Array;
  /** Throws on bytes that are not UTF-8. */
  decode(bytes: Uint8Array): string;
}

export const PACKED_RUN_FORMAT = 'clab.packed-run';
export const PACKED_RUN_VERSION = 1;

const PHASES = timelineEventSchema.shape.phase.options;
type Phase = TimelineEvent['phase'];

/** How a column's values are held: the smallest that holds all of them exactly. */
const COLUMN_TYPES = {
  u8: Uint8Array,
  u16: Uint16Array,
  u32: Uint32Array,
  i32: Int32Array,
  f64: Float64Array,
} as const;
type ColumnType = keyof typeof COLUMN_TYPES;
type Column = InstanceType<(typeof COLUMN_TYPES)[ColumnType]>;

const EVENT_COLUMNS = ['rank', 'stream', 'step', 'name', 'phase', 'startNs', 'endNs', 'bytes'] as const;
/** Of the events with an NCCL channel: their indices (ascending), then their channels' fields. */
const CHANNEL_COLUMNS = ['at', 'id', 'algo', 'proto', 'iteration'] as const;
type EventColumn = (typeof EVENT_COLUMNS)[number];
type ChannelColumn = (typeof CHANNEL_COLUMNS)[number];

interface PackedHeader {
  format: typeof PACKED_RUN_FORMAT;
  version: typeof PACKED_RUN_VERSION;
  /** The record with no events. */
  record: Omit<RunRecord, 'events'> & { events: [] };
  events: {
    count: number;
    /** Every name, algorithm and protocol, once. */
    strings: string[];
    types: Record<EventColumn, ColumnType>;
    channels: number;
    channelTypes: Record<ChannelColumn, ColumnType>;
    /** The events with an NCCL proxy operation (few: the network's), each's fields as they are. */
    proxy: { at: number[]; value: NonNullable<TimelineEvent['proxy']>[] };
  };
}

const ALIGN = 8;
const padded = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

function typeFor(values: ArrayLike<number>): ColumnType {
  let min = 0;
  let max = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (!Number.isInteger(x) || Object.is(x, -0)) return 'f64';
    if (x < min) min = x;
    if (x > max) max = x;
  }
  if (min < 0) return min >= -(2 ** 31) && max < 2 ** 31 ? 'i32' : 'f64';
  return max < 2 ** 8 ? 'u8' : max < 2 ** 16 ? 'u16' : max < 2 ** 32 ? 'u32' : 'f64';
}

/**
 * The record as the doors send it (see the layout above). The record must be valid (as read).
 * `finish` gives the record whose parts the header holds, called once the events' columns are
 * made (a save stamps its end there); it must not change the events.
 */
export function packRecord(record: RunRecord, utf8: Utf8, finish: (r: RunRecord) => RunRecord = (r) => r): Uint8Array<ArrayBuffer> {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const intern = (s: string) => {
    let i = index.get(s);
    if (i === undefined) index.set(s, (i = strings.push(s) - 1));
    return i;
  };
  const phaseIndex = new Map(PHASES.map((p, i) => [p, i]));
  const events = record.events;
  const n = events.length;
  // Every value held exactly as a double first (typed arrays, not arrays of numbers: a third of
  // the time for 100 000 events), then copied into the smallest type that holds the column.
  const columns = Object.fromEntries(EVENT_COLUMNS.map((c) => [c, new Float64Array(n)])) as Record<EventColumn, Float64Array>;
  const channel = Object.fromEntries(CHANNEL_COLUMNS.map((c) => [c, [] as number[]])) as Record<ChannelColumn, number[]>;
  const proxy: PackedHeader['events']['proxy'] = { at: [], value: [] };
  for (let i = 0; i < n; i++) {
    const e = events[i];
    columns.rank[i] = e.rank;
    columns.stream[i] = e.stream;
    columns.step[i] = e.step;
    columns.name[i] = intern(e.name);
    columns.phase[i] = phaseIndex.get(e.phase)!;
    columns.startNs[i] = e.startNs;
    columns.endNs[i] = e.endNs;
    columns.bytes[i] = e.bytes;
    if (e.channel) {
      channel.at.push(i);
      channel.id.push(e.channel.id);
      channel.algo.push(intern(e.channel.algo));
      channel.proto.push(intern(e.channel.proto));
      channel.iteration.push(e.channel.iteration);
    }
    if (e.proxy) {
      proxy.at.push(i);
      proxy.value.push(e.proxy);
    }
  }
  const types = Object.fromEntries(EVENT_COLUMNS.map((c) => [c, typeFor(columns[c])])) as Record<EventColumn, ColumnType>;
  const channelTypes = Object.fromEntries(CHANNEL_COLUMNS.map((c) => [c, typeFor(channel[c])])) as Record<ChannelColumn, ColumnType>;
  const header: PackedHeader = {
    format: PACKED_RUN_FORMAT,
    version: PACKED_RUN_VERSION,
    record: { ...finish(record), events: [] },
    events: { count: n, strings, types, channels: channel.at.length, channelTypes, proxy },
  };
  const head = utf8.encode(JSON.stringify(header));
  const parts: [ArrayLike<number>, ColumnType][] = [
    ...EVENT_COLUMNS.map((c): [ArrayLike<number>, ColumnType] => [columns[c], types[c]]),
    ...CHANNEL_COLUMNS.map((c): [ArrayLike<number>, ColumnType] => [channel[c], channelTypes[c]]),
  ];
  let size = padded(4 + head.length);
  for (const [values, type] of parts) size += padded(values.length * COLUMN_TYPES[type].BYTES_PER_ELEMENT);
  const buffer = new ArrayBuffer(size);
  new DataView(buffer).setUint32(0, head.length, true);
  const bytes = new Uint8Array(buffer);
  bytes.set(head, 4);
  let offset = padded(4 + head.length);
  for (const [values, type] of parts) {
    const Type = COLUMN_TYPES[type];
    new Type(buffer, offset, values.length).set(values);
    offset += padded(values.length * Type.BYTES_PER_ELEMENT);
  }
  return bytes;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Reads a packed record's layout: its header, then a view of each column, checking that they fill the bytes exactly. */
function layout(bytes: Uint8Array<ArrayBuffer>, utf8: Utf8) {
  if (!LITTLE_ENDIAN) throw new Error('this machine is big-endian; a packed run holds little-endian numbers');
  if (bytes.byteOffset % ALIGN !== 0) bytes = bytes.slice();
  if (bytes.length < 4) throw new Error(`expected a packed run of at least 4 bytes, got ${bytes.length}`);
  const headLength = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  if (4 + headLength > bytes.length) throw new Error(`header: ${headLength} bytes said, ${bytes.length - 4} there`);
  let header: unknown;
  try {
    header = JSON.parse(utf8.decode(bytes.subarray(4, 4 + headLength)));
  } catch (e) {
    throw new Error(`header: not UTF-8 JSON (${(e as Error).message})`, { cause: e });
  }
  if (!isObject(header) || header.format !== PACKED_RUN_FORMAT || header.version !== PACKED_RUN_VERSION)
    throw new Error(`header: expected format "${PACKED_RUN_FORMAT}" version ${PACKED_RUN_VERSION}`);
  const events = header.events;
  if (!isObject(events)) throw new Error("events: expected the events' description (an object)");
  const count = (name: string, x: unknown) => {
    if (!Number.isSafeInteger(x) || (x as number) < 0) throw new Error(`events.${name}: expected an integer ≥ 0`);
    return x as number;
  };
  const n = count('count', events.count);
  const m = count('channels', events.channels);
  let offset = padded(4 + headLength);
  const view = (path: string, type: unknown, length: number): Column => {
    if (typeof type !== 'string' || !Object.hasOwn(COLUMN_TYPES, type))
      throw new Error(`${path}: expected a column type (${Object.keys(COLUMN_TYPES).join(', ')})`);
    const Type = COLUMN_TYPES[type as ColumnType];
    const end = offset + length * Type.BYTES_PER_ELEMENT;
    if (end > bytes.length)
      throw new Error(`${path}: its ${length} value${length === 1 ? '' : 's'} go past the end of the ${bytes.length} bytes`);
    const column = new Type(bytes.buffer, bytes.byteOffset + offset, length);
    offset = padded(end);
    return column;
  };
  const typesOf = (name: string, x: unknown) => {
    if (!isObject(x)) throw new Error(`events.${name}: expected each column's type (an object)`);
    return x;
  };
  const types = typesOf('types', events.types);
  const channelTypes = typesOf('channelTypes', events.channelTypes);
  const columns = Object.fromEntries(EVENT_COLUMNS.map((c) => [c, view(`events.${c}`, types[c], n)])) as Record<EventColumn, Column>;
  const channel = Object.fromEntries(CHANNEL_COLUMNS.map((c) => [c, view(`events.channel.${c}`, channelTypes[c], m)])) as Record<
    ChannelColumn,
    Column
  >;
  if (offset !== bytes.length) throw new Error(`expected ${offset} bytes for the header and the columns, got ${bytes.length}`);
  return { header, events, n, m, columns, channel };
}

/**
 * Every value of a column satisfies `ok`, else throws naming the column and the element
 * (`events.rank[12]: expected an integer ≥ 0`).
 */
function check(column: Column, path: string, ok: (x: number) => boolean, what: string): void {
  for (let i = 0; i < column.length; i++) if (!ok(column[i])) throw new Error(`${path}[${i}]: expected ${what}`);
}

/**
 * The run record a packed run holds, checked as runRecordSchema checks a whole record (its parts
 * by the schema, its events column by column with the event schema's rules, then how they fit
 * together): throws naming the JSON path of the first problem (`events.rank[12]: expected …`).
 */
export function unpackRecord(packed: Uint8Array<ArrayBuffer>, utf8: Utf8): RunRecord {
  const { header, events, n, m, columns, channel } = layout(packed, utf8);
  const parts = runRecordSchema.safeParse(header.record);
  if (!parts.success) {
    const i = parts.error.issues[0];
    throw new Error(`record.${i.path.join('.')}: ${i.message}`);
  }
  if (parts.data.events.length !== 0) throw new Error('record.events: expected none (the events are in the columns)');
  const strings = events.strings;
  if (!Array.isArray(strings) || !strings.every((s) => typeof s === 'string'))
    throw new Error('events.strings: expected an array of strings');
  const int = (x: number) => Number.isSafeInteger(x);
  const stringIndex = (x: number) => Number.isInteger(x) && x >= 0 && x < strings.length;
  check(columns.rank, 'events.rank', (x) => int(x) && x >= 0, 'an integer ≥ 0');
  check(columns.stream, 'events.stream', int, 'an integer');
  check(columns.step, 'events.step', int, 'an integer');
  check(columns.name, 'events.name', stringIndex, 'an index into strings');
  check(
    columns.phase,
    'events.phase',
    (x) => Number.isInteger(x) && x >= 0 && x < PHASES.length,
    `an index into the phases (${PHASES.join(', ')})`,
  );
  for (const c of ['startNs', 'endNs', 'bytes'] as const) check(columns[c], `events.${c}`, Number.isFinite, 'a number');
  check(channel.at, 'events.channel.at', (x) => Number.isInteger(x) && x >= 0 && x < n, `an event index below ${n}`);
  for (let j = 1; j < m; j++)
    if (channel.at[j] <= channel.at[j - 1]) throw new Error(`events.channel.at[${j}]: expected indices in ascending order`);
  check(channel.id, 'events.channel.id', int, 'an integer');
  check(channel.algo, 'events.channel.algo', stringIndex, 'an index into strings');
  check(channel.proto, 'events.channel.proto', stringIndex, 'an index into strings');
  check(channel.iteration, 'events.channel.iteration', int, 'an integer');

  // Proxy operations, each checked by the event schema's own part.
  const px = events.proxy;
  if (!isObject(px) || !Array.isArray(px.at) || !Array.isArray(px.value) || px.at.length !== px.value.length)
    throw new Error("events.proxy: expected the proxy operations' event indices and values, as many of each");
  const proxyAt: unknown[] = px.at;
  proxyAt.forEach((x, j) => {
    if (!Number.isInteger(x) || (x as number) < 0 || (x as number) >= n)
      throw new Error(`events.proxy.at[${j}]: expected an event index below ${n}`);
    if (j > 0 && (x as number) <= (proxyAt[j - 1] as number)) throw new Error(`events.proxy.at[${j}]: expected indices in ascending order`);
  });
  const proxySchema = timelineEventSchema.shape.proxy.unwrap();
  const proxies = px.value.map((v, j) => {
    const r = proxySchema.safeParse(v);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new Error(`events.proxy.value[${j}]${issue.path.map((k) => `.${String(k)}`).join('')}: ${issue.message}`);
    }
    return r.data;
  });

  const { rank, stream, step, name, phase, startNs, endNs, bytes } = columns;
  const list: TimelineEvent[] = new Array(n);
  for (let i = 0; i < n; i++) {
    list[i] = {
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
    list[channel.at[j]].channel = {
      id: channel.id[j],
      algo: strings[channel.algo[j]] as string,
      proto: strings[channel.proto[j]] as string,
      iteration: channel.iteration[j],
    };
  proxies.forEach((p, j) => (list[proxyAt[j] as number].proxy = p));
  const record = { ...parts.data, events: list };
  const problem = recordInconsistency(record);
  if (problem) throw new Error(`${problem.path.join('.')}: ${problem.message}`);
  return record;
}
