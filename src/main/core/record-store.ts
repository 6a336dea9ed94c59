// Run records on disk: written atomically (temp file + rename), validated when read, read up to
// a bound (counted as read), named so that two runs never share a file.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file.js';
import { readCapped, type ReadCappedOptions } from './read-capped.js';
import type { RunRecord } from '../../shared/run/record.js';
import { parseRecordJson, validateRecord } from '../../shared/run/record-text.js';

export function writeRecordAtomic(file: string, record: RunRecord): void {
  writeFileAtomic(file, JSON.stringify(record));
}

/** The most a record read by `clab` may hold (a V8 string holds at most ~512 MiB of text). */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;

export type RecordReadOptions = Partial<Omit<ReadCappedOptions, 'head'>>;

export function readRecord(file: string, o: RecordReadOptions = {}): RunRecord {
  // The bytes are let go once decoded, and the text once parsed: a large record's bytes, text,
  // parsed JSON and checked copy are not all held at once.
  return validRecord(file, parseRecordText(file, readRecordBytes(file, o).toString('utf8')));
}

/** A record file's bytes, at most maxBytes (MAX_RECORD_BYTES), the error naming the file. */
export function readRecordBytes(file: string, o: RecordReadOptions = {}): Buffer {
  try {
    return readCapped(file, { maxBytes: o.maxBytes ?? MAX_RECORD_BYTES, regularOnly: o.regularOnly });
  } catch (e) {
    throw new Error(`${file}: cannot read the run record: ${(e as Error).message}`, { cause: e });
  }
}

/** The record in a file's bytes (readRecordBytes), parsed and validated, errors naming the file. */
export function recordFromBytes(file: string, bytes: Buffer): RunRecord {
  return validRecord(file, parseRecordText(file, bytes.toString('utf8')));
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

/** Record paths handed out by this process and not yet written: two runs in one millisecond get two. */
const handedOut = new Set<string>();

/**
 * `<dir>/<name>-<time>-<random>.run.json`, a name no file has and this process has not given to
 * another run: runs started in the same millisecond (serve's clients) never share a record.
 */
export function defaultRecordPath(scenarioName: string, createdAt: Date, dir = 'runs'): string {
  const slug =
    scenarioName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 80) || 'run';
  const stamp = createdAt.toISOString().replace(/[:.]/g, '-');
  for (let attempt = 0; ; attempt++) {
    const path = join(dir, `${slug}-${stamp}-${randomBytes(3).toString('hex')}.run.json`);
    if ((!handedOut.has(path) && !existsSync(path)) || attempt >= 16) {
      handedOut.add(path);
      return path;
    }
  }
}
