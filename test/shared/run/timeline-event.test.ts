import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  canonicalEvents,
  CHANNEL_KEYS,
  EVENT_KEYS,
  PROXY_KEYS,
  timelineEventSchema,
  timelineEventsSchema,
  WAIT_KEYS,
} from '../../../src/shared/run/timeline-event.js';
import { runRecordSchema } from '../../../src/shared/run/record.js';
import { syntheticRecord } from '../../../bench/timeline/synthetic-record.js';

/** What the events were checked with before: the schema, event by event. */
const bySchema = z.array(timelineEventSchema);
const PHASES = timelineEventSchema.shape.phase.options;
const proxyShape = timelineEventSchema.shape.proxy.unwrap().shape;

/** Values near every rule's edge, and of every wrong type. */
const odd = fc.constantFrom<unknown>(undefined, null, NaN, Infinity, -Infinity, -1, -0, 0.5, 2 ** 53, '1', '', true, [], {}, 'timed');
const number = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer());
const int = fc.oneof(fc.integer(), fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, -0));
// Plain objects, as JSON.parse makes them (fast-check makes some without a prototype unless told).
const plain = { noNullPrototype: true };
const waitUs = fc.record({ gpu: number, peer: number, network: number, flush: number }, plain);
const validEvent = fc.record(
  {
    rank: fc.oneof(fc.nat(), fc.constant(-0)),
    stream: int,
    step: int,
    name: fc.string(),
    phase: fc.constantFrom(...PHASES),
    startNs: number,
    endNs: number,
    bytes: number,
    channel: fc.record({ id: int, algo: fc.string(), proto: fc.string(), iteration: int }, plain),
    proxy: fc.record({ channel: int, peer: int, send: fc.boolean(), steps: int, bytes: number, iteration: int, waitUs }, plain),
  },
  { requiredKeys: ['rank', 'stream', 'step', 'name', 'phase', 'startNs', 'endNs', 'bytes'], ...plain },
);

/** `o` with one key (a known one, or one the schema does not know) set to an odd value, or gone. */
const mutated = (o: Record<string, unknown>, keys: readonly string[]): fc.Arbitrary<Record<string, unknown>> =>
  fc.tuple(fc.constantFrom(...keys, 'extra'), odd, fc.boolean()).map(([key, value, remove]) => {
    const copy = { ...o };
    if (remove) delete copy[key];
    else copy[key] = value;
    return copy;
  });

/** A valid event broken in one place: at its top, in its channel or proxy, or in the proxy's waits; or not a plain object. */
const brokenEvent = validEvent.chain((e): fc.Arbitrary<unknown> => {
  const options: fc.Arbitrary<unknown>[] = [
    mutated(e, EVENT_KEYS),
    fc.constant(Object.assign(Object.create(null) as object, e)),
    fc.constant(Object.assign(Object.create({ inherited: true }) as object, e)),
  ];
  if (e.channel) options.push(mutated(e.channel, CHANNEL_KEYS).map((channel) => ({ ...e, channel })));
  if (e.proxy) {
    const p = e.proxy;
    options.push(mutated(p, PROXY_KEYS).map((proxy) => ({ ...e, proxy })));
    options.push(mutated(p.waitUs, WAIT_KEYS).map((w) => ({ ...e, proxy: { ...p, waitUs: w } })));
  }
  return fc.oneof(...options);
});

/** Arrays of events: wholly valid ones (the hand check's case), ones with a broken event among valid ones, and odd values. */
const events = fc.oneof(
  { arbitrary: fc.array(validEvent, { maxLength: 8 }), weight: 4 },
  {
    arbitrary: fc.array(fc.oneof({ arbitrary: validEvent, weight: 3 }, { arbitrary: brokenEvent, weight: 1 }), { maxLength: 8 }),
    weight: 4,
  },
  { arbitrary: odd, weight: 1 },
);

const issuesOf = (r: z.ZodSafeParseResult<unknown>) =>
  r.success ? [] : r.error.issues.map((i) => ({ code: i.code, path: i.path, message: i.message }));

describe("the hand check of a run's events", () => {
  it('knows exactly the keys of the event schema', () => {
    expect(Object.keys(timelineEventSchema.shape)).toEqual(EVENT_KEYS);
    expect(Object.keys(timelineEventSchema.shape.channel.unwrap().shape)).toEqual(CHANNEL_KEYS);
    expect(Object.keys(proxyShape)).toEqual(PROXY_KEYS);
    expect(Object.keys(proxyShape.waitUs.shape)).toEqual(WAIT_KEYS);
  });

  it('accepts exactly what the schema accepts, giving the same events or the same issues', () => {
    fc.assert(
      fc.property(events, (value) => {
        const fast = timelineEventsSchema.safeParse(value);
        const schema = bySchema.safeParse(value);
        expect(fast.success).toBe(schema.success);
        if (fast.success && schema.success) expect(fast.data).toStrictEqual(schema.data);
        expect(issuesOf(fast)).toEqual(issuesOf(schema));
      }),
      { numRuns: 3000 },
    );
  });

  it('takes an array by hand only where the schema would give back the same events', () => {
    let byHand = 0;
    fc.assert(
      fc.property(events, (value) => {
        const fast = canonicalEvents(value);
        if (fast === null) return;
        byHand++;
        expect(fast).toStrictEqual(bySchema.parse(value));
      }),
      { numRuns: 3000 },
    );
    // The generator reaches the hand check, not only the schema.
    expect(byHand).toBeGreaterThan(1000);
  });

  it('leaves to the schema an event with a key it does not know, which the schema drops', () => {
    const e = { rank: 0, stream: 0, step: 0, name: 'x', phase: 'timed', startNs: 1, endNs: 2, bytes: 8 };
    expect(canonicalEvents([e])).toEqual([e]);
    expect(canonicalEvents([{ ...e, note: 'x' }])).toBeNull();
    expect(canonicalEvents([{ ...e, channel: undefined }])).toBeNull();
    expect(timelineEventsSchema.parse([{ ...e, note: 'x' }])).toStrictEqual([e]);
  });

  it('names the first bad event of a record by its path, as the schema did', () => {
    const record = syntheticRecord({ ranks: 2, rounds: 2, warmup: 0, iters: 1 });
    const raw = JSON.parse(JSON.stringify(record)) as { events: Record<string, unknown>[] };
    raw.events[7].rank = -1;
    raw.events[9].name = 3;
    const r = runRecordSchema.safeParse(raw);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]).toMatchObject({ path: ['events', 7, 'rank'], message: 'Too small: expected number to be >=0' });
    expect(r.error!.issues[1]).toMatchObject({ path: ['events', 9, 'name'] });
  });

  it('checks a large record without the schema going over each event (the events come back as they are)', () => {
    const record = JSON.parse(JSON.stringify(syntheticRecord({ ranks: 8, rounds: 10, warmup: 2, iters: 10 }))) as { events: object[] };
    const parsed = runRecordSchema.parse(record);
    expect(parsed.events).toHaveLength(record.events.length);
    expect(parsed.events).not.toBe(record.events);
    for (const [i, e] of parsed.events.entries()) expect(e).toBe(record.events[i]);
  });
});
