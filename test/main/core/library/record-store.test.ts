// Reading a run record: a large file that cannot be one (60 MiB of spaces) is refused from its
// first bytes, in one line naming it, neither read nor parsed whole.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readChunk, type ChunkReader } from '../../../../src/main/core/ground/read-capped';
import { MAX_RECORD_BYTES, readRecord, readRecordFile, writeRecordAtomic } from '../../../../src/main/core/library/record-store';
import { PACKED_FILE_MIN_EVENTS } from '../../../../src/shared/run/record/record-file';
import { RECORD_START_BYTES } from '../../../../src/shared/run/record/record-text';
import { syntheticRecord } from '../../../../bench/timeline/synthetic-record';
import { tempDir } from '../../../setup/temp-dirs';

const dir = tempDir('record-store');
afterEach(() => vi.restoreAllMocks());

const MiB = 1024 * 1024;
const spaces = join(dir, 'spaces.run.json');
writeFileSync(spaces, Buffer.alloc(60 * MiB, ' '));

/** A reader that counts the bytes it was asked to read and read. */
function counting() {
  const counted = { bytes: 0 };
  const read: ChunkReader = async (handle, into, position) => {
    const n = await readChunk(handle, into, position);
    counted.bytes += n;
    return n;
  };
  return { counted, read };
}

/** JSON.parse calls given at least `chars` characters of text. */
function parsesOf(chars: number) {
  const parse = vi.spyOn(JSON, 'parse');
  return () => parse.mock.calls.filter(([t]) => typeof t === 'string' && t.length >= chars).length;
}

const whitespaceOnly = `${spaces}: not a valid run record: its first 64 KiB are whitespace only (a run record is a JSON object that starts with "format": "clab.run")`;

describe('a run record read from its file', () => {
  it('refuses 60 MiB of spaces from its first 64 KiB, in one line, without reading the rest', async () => {
    const { counted, read } = counting();
    const parsedWhole = parsesOf(MiB);
    const refused = await readRecordFile(spaces, { maxBytes: MAX_RECORD_BYTES, regularOnly: true, read }).catch((e: Error) => e);
    expect((refused as Error).message).toBe(whitespaceOnly);
    expect(counted.bytes).toBe(RECORD_START_BYTES + 1);
    expect(parsedWhole()).toBe(0);
  });

  it('refuses it the same way where clab reads a record at once (replay, compare, export)', () => {
    const parsedWhole = parsesOf(MiB);
    expect(() => readRecord(spaces)).toThrow(expect.objectContaining({ message: whitespaceOnly }));
    expect(parsedWhole()).toBe(0);
  });

  it('refuses a large file that is not a JSON object, or whose start names no run record', async () => {
    const padding = ' '.repeat(RECORD_START_BYTES);
    const cases = [
      ['array.run.json', `  [${padding}]`, 'it starts with "[", not "{"'],
      ['unnamed.run.json', `{"notes": "${padding}", "format": "clab.run"}`, 'its first 64 KiB hold no "format" field'],
      ['other.run.json', `{"format": "clab.scenario", "notes": "${padding}"}`, 'its "format" is "clab.scenario", not "clab.run"'],
    ];
    for (const [name, text, problem] of cases) {
      const file = join(dir, name);
      writeFileSync(file, text);
      await expect(readRecordFile(file)).rejects.toThrow(`${file}: not a valid run record: ${problem}`);
      expect(() => readRecord(file)).toThrow(`${file}: not a valid run record: ${problem}`);
    }
  });

  it('reads a large record whose start says it is one, after whitespace, through the reader it is given', async () => {
    const record = syntheticRecord({ ranks: 4, rounds: 400, warmup: 1, iters: 5, name: 'large' });
    const file = join(dir, 'large.run.json');
    const text = JSON.stringify(record, null, 1);
    expect(text.length).toBeGreaterThan(2 * MiB);
    writeFileSync(file, `\n  ${text}`);
    const { counted, read } = counting();
    expect((await readRecordFile(file, { read })).id).toBe(record.id);
    expect(counted.bytes).toBe(Buffer.byteLength(text) + 3);
    expect(readRecord(file).id).toBe(record.id);
  });
});

describe('a run record of many events, written packed', () => {
  const record = syntheticRecord({ ranks: 2, rounds: 400, warmup: 1, iters: 5, name: 'packed' });
  const file = join(dir, 'packed.run.json');

  it('reads back as the record it was, where clab reads it at once and where a door reads it', async () => {
    expect(record.events.length).toBeGreaterThanOrEqual(PACKED_FILE_MIN_EVENTS);
    const written = writeRecordAtomic(file, record);
    expect(written).toBe(record);
    const bytes = readFileSync(file);
    expect(bytes.subarray(0, 20).toString('latin1')).toBe('{"format":"clab.run"');
    expect(bytes.length).toBeLessThan(JSON.stringify(record).length);
    expect(readRecord(file)).toEqual(record);
    expect(await readRecordFile(file)).toEqual(record);
  });

  it('holds what finish made of the record once its events were encoded, and returns it', () => {
    const marks = { askedNs: 1, forkNs: 2, runEndNs: 3, saveStartNs: 4, saveEndNs: 5 };
    const written = writeRecordAtomic(file, record, (r) => ({ ...r, timeMarks: marks }));
    expect(written.timeMarks).toEqual(marks);
    expect(readRecord(file).timeMarks).toEqual(marks);
  });

  it('cut short, is refused in one line naming the file and where its columns break', async () => {
    writeRecordAtomic(file, record);
    const cut = join(dir, 'cut.run.json');
    const bytes = readFileSync(file);
    writeFileSync(cut, bytes.subarray(0, bytes.length - 100));
    expect(() => readRecord(cut)).toThrow(
      new RegExp(`^${cut}: not a valid run record: events\\.\\w+(\\.\\w+)?: its \\d+ values go past the end`),
    );
    await expect(readRecordFile(cut)).rejects.toThrow(`${cut}: not a valid run record: events.`);
  });
});
