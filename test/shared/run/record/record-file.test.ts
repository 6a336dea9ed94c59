import { describe, expect, it } from 'vitest';
import { PACKED_RUN_FORMAT, unpackRecord, type Utf8 } from '../../../../src/shared/run/record/packed-run.js';
import { encodeRecordFile, PACKED_FILE_MIN_EVENTS, packedBody } from '../../../../src/shared/run/record/record-file.js';
import { runRecordSchema, type RunRecord } from '../../../../src/shared/run/record/record.js';
import { roundsFor, syntheticRecord } from '../../../../bench/timeline/synthetic-record.js';

const utf8: Utf8 = {
  encode: (text) => new TextEncoder().encode(text),
  decode: (bytes) => new TextDecoder('utf-8', { fatal: true }).decode(bytes),
};
const o = { ranks: 2, warmup: 1, iters: 4, name: 'record file' };
const small = runRecordSchema.parse(syntheticRecord({ ...o, rounds: 2 }));
const large = runRecordSchema.parse(syntheticRecord({ ...o, rounds: roundsFor(PACKED_FILE_MIN_EVENTS, o) }));

/** The file's bytes, in one buffer (as a file read gives them). */
function bytesOf(chunks: (string | Uint8Array)[]): Uint8Array<ArrayBuffer> {
  const parts = chunks.map((c) => (typeof c === 'string' ? utf8.encode(c) : c));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, (at += p.length) - p.length);
  return out;
}
const firstLine = (b: Uint8Array) => JSON.parse(utf8.decode(b.subarray(0, b.indexOf(0x0a)))) as Record<string, unknown>;

describe('a run record file', () => {
  it('of few events is one JSON object, events last, that any tool reads', () => {
    const bytes = bytesOf(encodeRecordFile(small, utf8));
    const text = utf8.decode(bytes);
    expect(JSON.parse(text)).toEqual(small);
    expect(text.startsWith('{"format":"clab.run"')).toBe(true);
    expect(text.indexOf('"events":')).toBeGreaterThan(text.indexOf('"logs":'));
    expect(packedBody(bytes, utf8)).toBeNull();
  });

  it('of many events is a summary line, then the packed run, which reads back as the record', () => {
    expect(large.events.length).toBeGreaterThanOrEqual(PACKED_FILE_MIN_EVENTS);
    const bytes = bytesOf(encodeRecordFile(large, utf8));
    const head = firstLine(bytes);
    expect(head).toMatchObject({
      format: 'clab.run',
      packed: PACKED_RUN_FORMAT,
      id: large.id,
      createdAt: large.createdAt,
      status: large.status,
      world: large.world,
      scenario: { name: 'record file' },
      environment: { backend: large.environment.backend },
    });
    const body = packedBody(bytes, utf8)!;
    // In place: the columns lie 8-aligned in the file's bytes.
    expect(body.buffer).toBe(bytes.buffer);
    expect(unpackRecord(body, utf8)).toEqual(large);
    expect(bytes.length).toBeLessThan(utf8.encode(JSON.stringify(large)).length);
  });

  it('is finished (the save’s end stamped) after its events were encoded, and holds what finish gave', () => {
    for (const whole of [small, large]) {
      const order: string[] = [];
      // The last event says when it is read (encoded).
      const last = { ...whole.events.at(-1)! };
      const bytesOfLast = last.bytes;
      Object.defineProperty(last, 'bytes', { enumerable: true, get: () => (order.push('last event encoded'), bytesOfLast) });
      const record = { ...whole, events: [...whole.events.slice(0, -1), last] };
      const stamp = (r: RunRecord): RunRecord => {
        order.push('finished');
        return { ...r, timeMarks: { askedNs: 1, forkNs: 2, runEndNs: 3, saveStartNs: 4, saveEndNs: 5 } };
      };
      const bytes = bytesOf(encodeRecordFile(record, utf8, stamp));
      expect(order.filter((o, i) => o !== order[i - 1])).toEqual(['last event encoded', 'finished']);
      const body = packedBody(bytes, utf8);
      const read = body ? unpackRecord(body, utf8) : runRecordSchema.parse(JSON.parse(utf8.decode(bytes)));
      expect(read.timeMarks?.saveEndNs).toBe(5);
    }
  });

  it('laid out on several lines is JSON, not packed', () => {
    expect(packedBody(bytesOf([JSON.stringify(small, null, 2)]), utf8)).toBeNull();
  });

  it('whose summary names another packing is refused, saying so', () => {
    const bytes = bytesOf([`${JSON.stringify({ format: 'clab.run', packed: 'zip' })}\n1234`]);
    expect(() => packedBody(bytes, utf8)).toThrow('its first line says its events are packed as "zip", not "clab.packed-run"');
  });
});
