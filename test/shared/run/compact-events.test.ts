import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEvents, encodeEvents } from '../../../src/shared/run/compact-events.js';
import { timelineEventSchema, type TimelineEvent } from '../../../src/shared/run/protocol.js';

const PHASES = timelineEventSchema.shape.phase.options;
const number = fc.double({ noNaN: true, noDefaultInfinity: true });
const text = fc.oneof(fc.constantFrom('all_reduce', 'send', 'recv', 'Ring', 'Simple', ''), fc.string());
const timelineEvent: fc.Arbitrary<TimelineEvent> = fc.record(
  {
    rank: fc.nat(),
    stream: fc.integer(),
    step: fc.integer(),
    name: text,
    phase: fc.constantFrom(...PHASES),
    startNs: number,
    endNs: number,
    bytes: number,
    channel: fc.record({ id: fc.integer(), algo: text, proto: text, iteration: fc.integer() }),
    proxy: fc.record({
      channel: fc.integer(),
      peer: fc.integer(),
      send: fc.boolean(),
      steps: fc.integer(),
      bytes: number,
      iteration: fc.integer(),
      waitUs: fc.record({ gpu: number, peer: number, network: number, flush: number }),
    }),
  },
  { requiredKeys: ['rank', 'stream', 'step', 'name', 'phase', 'startNs', 'endNs', 'bytes'] },
);

/** Through JSON, as both forms travel: the compact form must carry exactly what the plain one does. */
const viaJson = <T>(x: T): unknown => JSON.parse(JSON.stringify(x));

describe('the compact form of timeline events', () => {
  it('gives back exactly the events it was made from, after JSON, each one valid', () => {
    fc.assert(
      fc.property(fc.array(timelineEvent, { maxLength: 60 }), (events) => {
        const decoded = decodeEvents(viaJson(encodeEvents(events)));
        expect(decoded).toEqual(viaJson(events));
        for (const e of decoded) expect(timelineEventSchema.safeParse(e).success).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps each string once and each key nowhere', () => {
    const events: TimelineEvent[] = Array.from({ length: 1000 }, (_, i) => ({
      rank: i % 8,
      stream: 0,
      step: i >> 3,
      name: 'all_reduce',
      phase: 'timed',
      startNs: 1e12 + i * 1000,
      endNs: 1e12 + i * 1000 + 500,
      bytes: 4096,
    }));
    const compact = JSON.stringify(encodeEvents(events));
    expect(compact.split('all_reduce')).toHaveLength(2);
    expect(compact.length).toBeLessThan(JSON.stringify(events).length / 2);
  });

  it('refuses a column that is not what the schema allows, naming it and the element', () => {
    const good = () =>
      viaJson(encodeEvents([{ rank: 0, stream: 0, step: 0, name: 'x', phase: 'timed', startNs: 1, endNs: 2, bytes: 8 }])) as Record<
        string,
        unknown
      >;
    const withColumn = (name: string, values: unknown[]) => ({ ...good(), [name]: values });
    expect(() => decodeEvents(withColumn('rank', [-1]))).toThrow('events.rank[0]: expected an integer ≥ 0');
    expect(() => decodeEvents(withColumn('phase', [99]))).toThrow(/events\.phase\[0\]: expected an index into the phases/);
    expect(() => decodeEvents(withColumn('name', [3]))).toThrow('events.name[0]: expected an index into strings');
    expect(() => decodeEvents(withColumn('startNs', ['1']))).toThrow('events.startNs[0]: expected a number');
    expect(() => decodeEvents(withColumn('bytes', []))).toThrow('events.bytes: expected an array of 1 numbers');
    expect(() => decodeEvents({ ...good(), channel: { at: [5], id: [0], algo: [0], proto: [0], iteration: [0] } })).toThrow(
      'events.channel.at[0]: expected an event index below 1',
    );
    const waitUs = { gpu: 1, peer: 0, network: 2, flush: 0 };
    const proxy = (steps: unknown, at = 0) => ({
      at: [at],
      value: [{ channel: 0, peer: 1, send: true, steps, bytes: 8, iteration: 0, waitUs }],
    });
    expect(() => decodeEvents({ ...good(), proxy: proxy('3') })).toThrow(/^events\.proxy\.value\[0\]\.steps: /);
    expect(() => decodeEvents({ ...good(), proxy: proxy(3, 4) })).toThrow('events.proxy.at[0]: expected an event index below 1');
    expect(decodeEvents({ ...good(), proxy: proxy(3) })[0].proxy).toMatchObject({ steps: 3, waitUs });
    expect(() => decodeEvents(null, 'record.events')).toThrow("record.events: expected the events' columns (an object)");
  });
});
