// Run records on disk: written atomically (temp file + rename), validated when read, read up to
// a bound (counted as read), named so that two runs never share a file. A large file is refused
// from its start where that cannot begin a record (60 MiB of spaces), before the rest is parsed;
// a door reads a record a chunk at a time, and parses it with the event loop let go between steps.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicChunks } from '../ground/atomic-file.js';
import { FileTooLargeError, readCapped, readCappedChunks, type ReadCappedChunksOptions } from '../ground/read-capped.js';
import type { RunRecord } from '../../../shared/run/record/record.js';
import { encodeRecordFile, packedBody } from '../../../shared/run/record/record-file.js';
import { unpackRecord } from '../../../shared/run/record/packed-run.js';
import { nodeUtf8 } from './packed-runs.js';
import {
  MAX_RECORD_BYTES,
  parseRecordJson,
  RECORD_START_BYTES,
  recordStartProblem,
  recordTooLargeMessage,
  validateRecord,
} from '../../../shared/run/record/record-text.js';

/**
 * Writes a record, atomically, in the form its size calls for (record-file.ts: packed where it
 * holds many events, else JSON). `finish` makes the record written once its events are encoded
 * (the save's end stamped); returns the record written.
 */
export function writeRecordAtomic(file: string, record: RunRecord, finish: (r: RunRecord) => RunRecord = (r) => r): RunRecord {
  let written = record;
  const chunks = encodeRecordFile(record, nodeUtf8, (r) => (written = finish(r)));
  writeFileAtomicChunks(file, (write) => chunks.forEach(write));
  return written;
}

export { MAX_RECORD_BYTES } from '../../../shared/run/record/record-text.js';

/** The bound (MAX_RECORD_BYTES), whether only a regular file is read, and how a door reads each chunk. */
export type RecordReadOptions = Partial<Omit<ReadCappedChunksOptions, 'start'>>;

const NOT_A_RECORD = 'CLAB_NOT_A_RUN_RECORD';

/** Throws, in one line naming the file, where a record file's first bytes cannot begin a record (recordStartProblem). */
function checkRecordStart(file: string, bytes: Buffer): void {
  if (bytes.length <= RECORD_START_BYTES) return; // short: parsed, and said where it breaks
  const problem = recordStartProblem(bytes.subarray(0, RECORD_START_BYTES).toString('utf8'));
  if (problem) throw Object.assign(new Error(`${file}: not a valid run record: ${problem}`), { code: NOT_A_RECORD });
}

/** A record that cannot be read, in one line naming it; one too large says the bound every door shares. */
function cannotRead(file: string, e: unknown): Error {
  if ((e as NodeJS.ErrnoException).code === NOT_A_RECORD) return e as Error;
  if (e instanceof FileTooLargeError)
    return Object.assign(new Error(recordTooLargeMessage(file, e.exact ? e.bytes : null), { cause: e }), { code: e.code });
  return new Error(`${file}: cannot read the run record: ${(e as Error).message}`, { cause: e });
}

/** A record read at once, as `clab`'s commands read one (serving no one else meanwhile). */
export function readRecord(file: string, o: RecordReadOptions = {}): RunRecord {
  // The bytes are let go once decoded, and the text once parsed: a large record's bytes, text,
  // parsed JSON and checked copy are not all held at once.
  const bytes = readRecordBytes(file, o);
  checkRecordStart(file, bytes);
  return packedRecord(file, bytes) ?? validRecord(file, parseRecordText(file, bytes.toString('utf8')));
}

/** The record a packed record file holds (record-file.ts), checked; null where the file is a JSON record. */
function packedRecord(file: string, bytes: Buffer): RunRecord | null {
  const body = packedRunOf(file, bytes);
  try {
    return body && unpackRecord(body, nodeUtf8);
  } catch (e) {
    throw notARecord(file, e);
  }
}

/**
 * The packed run of a packed record file (record-file.ts), as the page reads it (it checks every
 * part); null where the file is a JSON record.
 */
export function packedRunOf(file: string, bytes: Buffer): Uint8Array<ArrayBuffer> | null {
  try {
    return packedBody(asArrayBuffer(bytes), nodeUtf8);
  } catch (e) {
    throw notARecord(file, e);
  }
}

const notARecord = (file: string, e: unknown) => new Error(`${file}: not a valid run record: ${(e as Error).message}`, { cause: e });

const asArrayBuffer = (b: Buffer) => new Uint8Array(b.buffer as ArrayBuffer, b.byteOffset, b.length);

function readRecordBytes(file: string, o: RecordReadOptions): Buffer {
  try {
    return readCapped(file, { maxBytes: o.maxBytes ?? MAX_RECORD_BYTES, regularOnly: o.regularOnly });
  } catch (e) {
    throw cannotRead(file, e);
  }
}

/**
 * A record file's bytes as a door reads them: a chunk at a time, the event loop going on between
 * chunks, and its start checked before the rest is read; at most maxBytes (MAX_RECORD_BYTES).
 * Errors name the file.
 */
export async function readRecordFileBytes(file: string, o: RecordReadOptions = {}): Promise<Buffer> {
  try {
    return await readCappedChunks(file, {
      ...o,
      maxBytes: o.maxBytes ?? MAX_RECORD_BYTES,
      start: { bytes: RECORD_START_BYTES + 1, check: (start) => checkRecordStart(file, start) },
    });
  } catch (e) {
    throw cannotRead(file, e);
  }
}

/** Lets what else waits on the event loop (another client's request) go first. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The record in a file's bytes (readRecordFileBytes), decoded, parsed and validated with the event
 * loop let go between those steps (each a fraction of a second for the largest record a door
 * opens), errors naming the file.
 */
export async function recordFromBytes(file: string, bytes: Buffer): Promise<RunRecord> {
  const packed = packedRecord(file, bytes);
  if (packed) return packed;
  const text = bytes.toString('utf8');
  await nextTurn();
  const raw = parseRecordText(file, text);
  await nextTurn();
  return validRecord(file, raw);
}

/** As readRecord, as a door reads one: readRecordFileBytes, then recordFromBytes. */
export async function readRecordFile(file: string, o: RecordReadOptions = {}): Promise<RunRecord> {
  return recordFromBytes(file, await readRecordFileBytes(file, o));
}

function parseRecordText(file: string, text: string): unknown {
  const json = parseRecordJson(text);
  if (!json.ok) throw new Error(`${file}: cannot read the run record: ${json.problem}`);
  return json.raw;
}

function validRecord(file: string, raw: unknown): RunRecord {
  const r = validateRecord(raw);
  if (!r.ok) throw new Error(`${file}: not a valid run record: ${r.problem}`);
  return r.record;
}

/** The scenario's name as a file name's start: lower case, runs of other characters as one `-`. */
export function scenarioSlug(scenarioName: string): string {
  return (
    scenarioName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 80) || 'run'
  );
}

/** A time as a file name may hold it (no `:` or `.`). */
export const fileTimeStamp = (time: Date): string => time.toISOString().replace(/[:.]/g, '-');

/** Record paths handed out by this process and not yet written: two runs in one millisecond get two. */
const handedOut = new Set<string>();

/**
 * `<dir>/<name>-<time>-<random>.run.json`, a name no file has and this process has not given to
 * another run: runs started in the same millisecond (serve's clients) never share a record.
 */
export function defaultRecordPath(scenarioName: string, createdAt: Date, dir = 'runs'): string {
  const slug = scenarioSlug(scenarioName);
  const stamp = fileTimeStamp(createdAt);
  for (let attempt = 0; ; attempt++) {
    const path = join(dir, `${slug}-${stamp}-${randomBytes(3).toString('hex')}.run.json`);
    if ((!handedOut.has(path) && !existsSync(path)) || attempt >= 16) {
      handedOut.add(path);
      return path;
    }
  }
}
