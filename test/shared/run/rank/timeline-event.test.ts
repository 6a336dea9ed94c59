import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CHANNEL_KEYS,
  EVENT_KEYS,
  eventByHand,
  PROXY_KEYS,
  timelineEventSchema,
  timelineEventsSchema,
  WAIT_KEYS,
} from '../../../../src/shared/run/rank/timeline-event.js';
import { runRecordSchema } from '../../../../src/shared/run/record/record.js';
import { syntheticRecord } from '../../../../bench/timeline/synthetic-record.js';
import { int, itStandsInForTheSchema, mutated, notPlain, number, plain } from '../near-valid.js';

const PHASES = timelineEventSchema.shape.phase.options;
const proxyShape = timelineEventSchema.shape.proxy.unwrap().shape;
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

/** A valid event broken in one place: at its top, in its channel or proxy, or in the proxy's waits; or not a plain object. */
const brokenEvent = validEvent.chain((e): fc.Arbitrary<unknown> => {
  const options: fc.Arbitrary<unknown>[] = [mutated(e, EVENT_KEYS), notPlain(e)];
  if (e.channel) options.push(mutated(e.channel, CHANNEL_KEYS).map((channel) => ({ ...e, channel })));
  if (e.proxy) {
    const p = e.proxy;
    options.push(mutated(p, PROXY_KEYS).map((proxy) => ({ ...e, proxy })));
    options.push(mutated(p.waitUs, WAIT_KEYS).map((w) => ({ ...e, proxy: { ...p, waitUs: w } })));
  }
  return fc.oneof(...options);
});

describe("the hand check of a run's events", () => {
  it('knows exactly the keys of the event schema', () => {
    expect(Object.keys(timelineEventSchema.shape)).toEqual(EVENT_KEYS);
    expect(Object.keys(timelineEventSchema.shape.channel.unwrap().shape)).toEqual(CHANNEL_KEYS);
    expect(Object.keys(proxyShape)).toEqual(PROXY_KEYS);
    expect(Object.keys(proxyShape.waitUs.shape)).toEqual(WAIT_KEYS);
  });

  itStandsInForTheSchema({
    element: timelineEventSchema,
    array: timelineEventsSchema,
    byHand: eventByHand,
    valid: validEvent,
    broken: brokenEvent,
  });

  it('drops a key the schema does not know and keeps an optional one there but undefined, as the schema does', () => {
    const e = { rank: 0, stream: 0, step: 0, name: 'x', phase: 'timed', startNs: 1, endNs: 2, bytes: 8 };
    expect(eventByHand({ ...e, note: 'x' })).toStrictEqual(e);
    expect(eventByHand({ ...e, channel: undefined })).toStrictEqual({ ...e, channel: undefined });
    expect(eventByHand({ ...e, channel: { id: 0, algo: 'Ring', proto: 'LL', iteration: 0.5 } })).toBeNull();
    expect(timelineEventsSchema.parse([e, { ...e, note: 'x' }])).toStrictEqual(timelineEventSchema.array().parse([e, { ...e, note: 'x' }]));
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

  it("gives a record's events as copies, equal to the record's and sharing nothing with them, as the schema did", () => {
    const record = JSON.parse(JSON.stringify(syntheticRecord({ ranks: 8, rounds: 10, warmup: 2, iters: 10 }))) as { events: object[] };
    const parsed = runRecordSchema.parse(record);
    expect(parsed.events).toStrictEqual(record.events);
    parsed.events.forEach((e, i) => expect(e).not.toBe(record.events[i]));
  });

  it('checks by hand every event of a record as clab writes it', () => {
    const raw = JSON.parse(JSON.stringify(syntheticRecord({ ranks: 4, rounds: 3, warmup: 1, iters: 3 }))) as { events: unknown[] };
    expect(raw.events.filter((e) => eventByHand(e) === null)).toEqual([]);
  });
});
