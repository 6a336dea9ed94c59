// A run record's file in either of its forms. A record of many events (a GPU sweep: 90 000, 18 MB
// of JSON) is kept packed: one line of JSON with the record's summary (what a listing reads of
// the file's start, as it reads a JSON record's first fields), then the record as the doors send
// it to the page (packed-run.ts): its events as binary columns, about a fifth of the JSON's bytes,
// written and opened in less time, and sent to the page as they lie. A smaller record stays one
// JSON object, readable by any tool; `clab replay --json` prints either form as JSON.
//
//   packed: {"format":"clab.run","version":1,"packed":"clab.packed-run",…summary}[spaces to 8n-1]\n[packed run]
import { PACKED_RUN_FORMAT, packRecord, type Utf8 } from './packed-run.js';
import { RECORD_FORMAT, RECORD_VERSION, type RunRecord } from './record.js';

/** A record of at least this many events is written packed (a JSON one of this many is about 1 MB). */
export const PACKED_FILE_MIN_EVENTS = 8192;
/** The summary line's bytes, at most (a listing reads a file's first 64 KiB). */
export const PACKED_HEAD_MAX_BYTES = 16 * 1024;
const NAME_CHARS = 200;
const NEWLINE = 0x0a;
const ALIGN = 8;

/** What a listing reads of a packed record (saved-runs.ts headSummary): a record's own fields, the scenario by its name only. */
function summaryOf(record: RunRecord) {
  const scenario = record.scenario;
  const name = typeof scenario === 'object' && scenario !== null ? (scenario as { name?: unknown }).name : undefined;
  return {
    format: RECORD_FORMAT,
    version: RECORD_VERSION,
    packed: PACKED_RUN_FORMAT,
    id: record.id,
    createdAt: record.createdAt,
    finishedAt: record.finishedAt,
    scenarioFile: record.scenarioFile,
    scenario: typeof name === 'string' ? { name: name.slice(0, NAME_CHARS) } : null,
    world: record.world,
    status: record.status,
    environment: { backend: record.environment.backend, host: record.environment.host.slice(0, NAME_CHARS) },
    ...(record.expectation ? { expectation: { met: record.expectation.met, note: record.expectation.note.slice(0, 1000) } } : {}),
  };
}

/** Whether a record is written packed: one of many events. */
export const writesPacked = (record: RunRecord): boolean => record.events.length >= PACKED_FILE_MIN_EVENTS;

/**
 * A record's file, in the form its size calls for, as the chunks to write one after another. `finish(record)` is called once
 * the events are encoded, and its record is the one written (`clab run` stamps there when the
 * save ended): only the small part of the file is made after it.
 */
export function encodeRecordFile(record: RunRecord, utf8: Utf8, finish: (r: RunRecord) => RunRecord = (r) => r): (string | Uint8Array)[] {
  if (!writesPacked(record)) {
    // The events' text first (the most of the file), then the rest with what `finish` adds.
    const events = JSON.stringify(record.events);
    const { events: _, ...rest } = finish(record);
    const text = JSON.stringify(rest);
    return [`${text.slice(0, -1)},"events":`, events, '}'];
  }
  let finished = record;
  const body = packRecord(record, utf8, (r) => (finished = finish(r)));
  const line = JSON.stringify(summaryOf(finished));
  const head = utf8.encode(line);
  const size = Math.ceil((head.length + 1) / ALIGN) * ALIGN;
  if (size > PACKED_HEAD_MAX_BYTES) throw new Error(`a packed record's summary is ${size} bytes, more than ${PACKED_HEAD_MAX_BYTES}`);
  const padded = new Uint8Array(size).fill(0x20);
  padded.set(head);
  padded[size - 1] = NEWLINE;
  return [padded, body];
}

/**
 * The packed run in a record file's bytes (for packed-run.ts unpackRecord), or null where the file
 * is a JSON record. Throws where its summary says packed but the bytes after it cannot be one.
 */
export function packedBody(bytes: Uint8Array<ArrayBuffer>, utf8: Utf8): Uint8Array<ArrayBuffer> | null {
  const limit = Math.min(bytes.length, PACKED_HEAD_MAX_BYTES);
  let newline = -1;
  for (let i = 0; i < limit; i++)
    if (bytes[i] === NEWLINE) {
      newline = i;
      break;
    }
  if (newline < 0) return null;
  let head: unknown;
  try {
    head = JSON.parse(utf8.decode(bytes.subarray(0, newline)));
  } catch {
    return null; // a JSON record laid out on several lines
  }
  if (typeof head !== 'object' || head === null || (head as { packed?: unknown }).packed === undefined) return null;
  const packed = (head as { packed: unknown }).packed;
  if (packed !== PACKED_RUN_FORMAT)
    throw new Error(`its first line says its events are packed as ${JSON.stringify(packed).slice(0, 80)}, not "${PACKED_RUN_FORMAT}"`);
  const start = newline + 1;
  // The packed run's columns are read in place where they lie 8-aligned, as written.
  return start % ALIGN === 0 && (bytes.byteOffset + start) % ALIGN === 0 ? bytes.subarray(start) : bytes.slice(start);
}
