// `clab export --format record-json`: the record itself as plain JSON, for tools that read JSON,
// whichever form its file has (JSON, or packed past 8192 events), written a chunk of events at a
// time so that a large run never needs its whole text as one string.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRecord, writeRecordAtomic } from '../../../src/main/core/library/record-store';
import { PACKED_FILE_MIN_EVENTS } from '../../../src/shared/run/record/record-file';
import { roundsFor, syntheticRecord } from '../../../bench/timeline/synthetic-record.js';
import { tempDir } from '../../setup/temp-dirs';

const dir = tempDir('export-record-json');
const isPacked = (file: string) => /^\{[^\n]*"packed":"clab\.packed-run"/.test(readFileSync(file).subarray(0, 4096).toString('latin1'));
const clab = (args: string[], node: string[] = []) =>
  spawnSync(process.execPath, [...node, 'bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 2 ** 20 });

describe('clab export --format record-json', () => {
  it('prints a packed record as plain JSON that reads back as the same record', () => {
    const shape = { ranks: 2, warmup: 1, iters: 5 };
    const record = syntheticRecord({ ...shape, rounds: roundsFor(PACKED_FILE_MIN_EVENTS, shape), name: 'packed' });
    const file = join(dir, 'packed.run.json');
    writeRecordAtomic(file, record);
    expect(isPacked(file)).toBe(true);
    const r = clab(['export', file, '--format', 'record-json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const json = JSON.parse(r.stdout) as { format: string; events: unknown[] };
    expect(json.format).toBe('clab.run');
    expect(json.events).toHaveLength(record.events.length);
    const out = join(dir, 'printed.run.json');
    writeFileSync(out, r.stdout);
    expect(readRecord(out)).toEqual(readRecord(file));
  });

  it('prints a JSON record as the same record', () => {
    const record = syntheticRecord({ ranks: 2, rounds: 3, warmup: 1, iters: 2, name: 'small' });
    const file = join(dir, 'small.run.json');
    writeRecordAtomic(file, record);
    expect(isPacked(file)).toBe(false);
    const r = clab(['export', file, '--format', 'record-json']);
    expect(r.status).toBe(0);
    const out = join(dir, 'small-printed.run.json');
    writeFileSync(out, r.stdout);
    expect(readRecord(out)).toEqual(readRecord(file));
  });

  // 100 100 events: 17 MB of JSON from 6 MB packed. Written whole (one JSON.stringify of the
  // record) the export needs more than 64 MiB of heap; streamed, it runs in 40 (measured 2026-11-27).
  const HEAP_MIB = 56;
  it(`writes a packed record of 100 000 events to a file as plain JSON with a ${HEAP_MIB} MiB heap`, () => {
    const shape = { ranks: 8, warmup: 2, iters: 10 };
    const record = syntheticRecord({ ...shape, rounds: roundsFor(100_000, shape), name: 'large' });
    const file = join(dir, 'large.run.json');
    writeRecordAtomic(file, record);
    expect(isPacked(file)).toBe(true);
    const out = join(dir, 'large.json');
    const r = clab(['export', file, '--format', 'record-json', '-o', out], [`--max-old-space-size=${HEAP_MIB}`]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    const json = JSON.parse(readFileSync(out, 'utf8')) as { events: unknown[] };
    expect(json.events).toHaveLength(record.events.length);
    expect(readRecord(out)).toEqual(readRecord(file));
  }, 180_000);
});
