import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packRecord, unpackRecord, type Utf8 } from '../../../../src/shared/run/record/packed-run.js';
import { timelineEventSchema, type TimelineEvent } from '../../../../src/shared/run/rank/protocol.js';
import { runRecordSchema, type RunRecord } from '../../../../src/shared/run/record/record.js';
import { syntheticRecord } from '../../../../bench/timeline/synthetic-record.js';

const utf8: Utf8 = {
  encode: (text) => new TextEncoder().encode(text),
  decode: (bytes) => new TextDecoder('utf-8', { fatal: true }).decode(bytes),
};
const PHASES = timelineEventSchema.shape.phase.options;
/** A small valid record whose events the tests replace: 2 ranks, 8 plan steps. */
const base = runRecordSchema.parse(syntheticRecord({ ranks: 2, rounds: 2, warmup: 0, iters: 1, name: 'packed' }));
const steps = base.plan.steps.length;

// No -0: a record's JSON has none (the columns would keep it, the header's JSON would not).
const number = fc
  .oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constantFrom(2 ** 40 + 0.5, 2 ** 53 - 1))
  .map((x) => (x === 0 ? 0 : x));
const int = fc.oneof(
  fc.integer(),
  fc.integer({ min: -300, max: 70_000 }),
  fc.constantFrom(2 ** 32, -(2 ** 31) - 1, Number.MAX_SAFE_INTEGER),
);
const text = fc.oneof(fc.constantFrom('all_reduce', 'send', 'recv', 'Ring', 'Simple', 'send 0→1', ''), fc.string());
const timelineEvent: fc.Arbitrary<TimelineEvent> = fc.record(
  {
    rank: fc.nat({ max: base.world - 1 }),
    stream: int,
    step: fc.nat({ max: steps - 1 }),
    name: text,
    phase: fc.constantFrom(...PHASES),
    startNs: number,
    endNs: number,
    bytes: number,
    channel: fc.record({ id: int, algo: text, proto: text, iteration: int }),
    proxy: fc.record({
      channel: int,
      peer: int,
      send: fc.boolean(),
      steps: int,
      bytes: number,
      iteration: int,
      waitUs: fc.record({ gpu: number, peer: number, network: number, flush: number }),
    }),
  },
  { requiredKeys: ['rank', 'stream', 'step', 'name', 'phase', 'startNs', 'endNs', 'bytes'], noNullPrototype: true },
);
const withEvents = (events: TimelineEvent[]): RunRecord => ({ ...base, events });
const event = (over: Partial<Record<keyof TimelineEvent, unknown>> = {}) =>
  ({ rank: 0, stream: 0, step: 0, name: 'x', phase: 'timed', startNs: 1, endNs: 2, bytes: 8, ...over }) as TimelineEvent;

const padded = (n: number) => Math.ceil(n / 8) * 8;
/** The packed run's header, as loose as a test that spoils it needs. */
interface Header {
  format: string;
  record: Record<string, unknown>;
  events: {
    count: number;
    channels: number;
    strings: string[];
    types: Record<string, string>;
    channelTypes: Record<string, string>;
    proxy: unknown;
  };
}
const headerOf = (packed: Uint8Array) => {
  const length = new DataView(packed.buffer, packed.byteOffset).getUint32(0, true);
  return { length, header: JSON.parse(utf8.decode(packed.subarray(4, 4 + length))) as Header };
};
/** The packed run with its header changed, its columns as they were. */
function withHeader(packed: Uint8Array, edit: (header: Header) => void): Uint8Array<ArrayBuffer> {
  const { length, header } = headerOf(packed);
  edit(header);
  const head = utf8.encode(JSON.stringify(header));
  const columns = packed.subarray(padded(4 + length));
  const out = new Uint8Array(padded(4 + head.length) + columns.length);
  new DataView(out.buffer).setUint32(0, head.length, true);
  out.set(head, 4);
  out.set(columns, padded(4 + head.length));
  return out;
}
/** A view of one column of the packed run (its layout: the event columns, then the channel columns, each padded to 8 bytes). */
function column(packed: Uint8Array<ArrayBuffer>, name: string) {
  const { length, header } = headerOf(packed);
  const types = { u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, i32: Int32Array, f64: Float64Array } as const;
  const order = [
    ...['rank', 'stream', 'step', 'name', 'phase', 'startNs', 'endNs', 'bytes'].map((c) => [
      c,
      header.events.types[c],
      header.events.count,
    ]),
    ...['at', 'id', 'algo', 'proto', 'iteration'].map((c) => [`channel.${c}`, header.events.channelTypes[c], header.events.channels]),
  ] as [string, keyof typeof types, number][];
  let offset = padded(4 + length);
  for (const [c, type, count] of order) {
    if (c === name) return new types[type](packed.buffer, offset, count);
    offset += padded(count * types[type].BYTES_PER_ELEMENT);
  }
  throw new Error(`no column ${name}`);
}

describe('a packed run', () => {
  it('gives back exactly the record it was made from, every event and value as it was', () => {
    fc.assert(
      fc.property(fc.array(timelineEvent, { maxLength: 60 }), (events) => {
        const record = runRecordSchema.parse(withEvents(events));
        expect(unpackRecord(packRecord(record, utf8), utf8)).toStrictEqual(record);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps each string once, each number in as few bytes as hold it, and is smaller than the record as JSON', () => {
    const record = runRecordSchema.parse(syntheticRecord({ ranks: 8, rounds: 20, warmup: 2, iters: 10 }));
    const packed = packRecord(record, utf8);
    const { header } = headerOf(packed);
    expect(header.events.types).toMatchObject({ rank: 'u8', stream: 'u8', step: 'u8', name: 'u8', phase: 'u8' });
    expect(header.events.strings.filter((s: string) => s === record.events[0].name)).toHaveLength(1);
    expect(packed.length).toBeLessThan(JSON.stringify(record).length / 2);
    expect(JSON.stringify(header).length).toBeLessThan(JSON.stringify({ ...record, events: [] }).length + 2000);
  });

  it('is read from a view at any offset of a larger buffer', () => {
    const record = withEvents([event(), event({ rank: 1, startNs: 3, endNs: 4 })]);
    const packed = packRecord(record, utf8);
    const larger = new Uint8Array(packed.length + 3);
    larger.set(packed, 3);
    expect(unpackRecord(larger.subarray(3), utf8)).toStrictEqual(record);
  });

  it('refuses a column that is not what the schema allows, naming it and the element', () => {
    const unpacked = (events: TimelineEvent[]) => () => unpackRecord(packRecord(withEvents(events), utf8), utf8);
    expect(unpacked([event(), event({ rank: -1 })])).toThrow('events.rank[1]: expected an integer ≥ 0');
    expect(unpacked([event({ stream: 1.5 })])).toThrow('events.stream[0]: expected an integer');
    expect(unpacked([event({ step: 2 ** 60 })])).toThrow('events.step[0]: expected an integer');
    expect(unpacked([event({ phase: 'nope' })])).toThrow(/^events\.phase\[0\]: expected an index into the phases \(warmup, /);
    expect(unpacked([event(), event({ startNs: NaN })])).toThrow('events.startNs[1]: expected a number');
    expect(unpacked([event({ bytes: Infinity })])).toThrow('events.bytes[0]: expected a number');
    expect(unpacked([event({ channel: { id: 0.5, algo: 'Ring', proto: 'LL', iteration: 0 } })])).toThrow(
      'events.channel.id[0]: expected an integer',
    );
    // Each part valid, together not: as the record's schema says it.
    expect(unpacked([event({ rank: 2 })])).toThrow('events.0: expected a rank of the world of 2 and a step of the plan');

    const good = packRecord(
      withEvents([event({ startNs: 1e12 + 0.5 }), event({ channel: { id: 0, algo: 'Ring', proto: 'LL', iteration: 0 } })]),
      utf8,
    );
    const refused = (edit: (header: Header) => void) => () => unpackRecord(withHeader(good, edit), utf8);
    expect(refused((h) => (h.events.strings = []))).toThrow('events.name[0]: expected an index into strings');
    expect(refused((h) => (h.events.types.rank = 'u64'))).toThrow('events.rank: expected a column type (u8, u16, u32, i32, f64)');
    expect(refused((h) => (h.events.count = 3))).toThrow(/^events\.[\w.]+: its \d+ values? go past the end of the \d+ bytes/);
    expect(refused((h) => (h.events.count = 1))).toThrow(/^expected \d+ bytes for the header and the columns, got \d+/);
    expect(refused((h) => (h.record.world = 0))).toThrow(/^record\.world: /);
    expect(refused((h) => (h.record.events = [event()]))).toThrow('record.events: expected none (the events are in the columns)');
    expect(refused((h) => (h.format = 'clab.run'))).toThrow('header: expected format "clab.packed-run" version 1');
    const waitUs = { gpu: 1, peer: 0, network: 2, flush: 0 };
    const proxy = (steps: unknown, at: unknown[] = [0]) => ({
      at,
      value: at.map(() => ({ channel: 0, peer: 1, send: true, steps, bytes: 8, iteration: 0, waitUs })),
    });
    expect(refused((h) => (h.events.proxy = proxy('3')))).toThrow(/^events\.proxy\.value\[0\]\.steps: /);
    expect(refused((h) => (h.events.proxy = proxy(3, [2])))).toThrow('events.proxy.at[0]: expected an event index below 2');
    expect(refused((h) => (h.events.proxy = proxy(3, [1, 1])))).toThrow('events.proxy.at[1]: expected indices in ascending order');
    expect(
      unpackRecord(
        withHeader(good, (h) => (h.events.proxy = proxy(3))),
        utf8,
      ).events[0].proxy,
    ).toMatchObject({ steps: 3, waitUs });

    const patched = (name: string, value: number) => {
      const bytes = good.slice();
      column(bytes, name)[0] = value;
      return () => unpackRecord(bytes, utf8);
    };
    expect(patched('channel.at', 5)).toThrow('events.channel.at[0]: expected an event index below 2');
    expect(patched('phase', 200)).toThrow(/^events\.phase\[0\]: expected an index into the phases/);
    expect(patched('name', 7)).toThrow('events.name[0]: expected an index into strings');

    expect(() => unpackRecord(good.slice(0, 3), utf8)).toThrow('expected a packed run of at least 4 bytes, got 3');
    expect(() => unpackRecord(good.slice(0, good.length - 8), utf8)).toThrow(/go past the end|expected \d+ bytes/);
    const notUtf8 = good.slice();
    notUtf8[5] = 0xff;
    expect(() => unpackRecord(notUtf8, utf8)).toThrow(/^header: not UTF-8 JSON/);
  });
});
