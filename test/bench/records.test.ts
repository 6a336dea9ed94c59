// bench/records.cjs, the record reader of the benches' and GPU tests' plain-node scripts: clab's
// own reader bundled into dist/records.cjs, so that a record in either file form (JSON, or packed
// past 8192 events) reads as clab reads it, where the scripts run: the GPU machine, with plain node.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRecord, writeRecordAtomic } from '../../src/main/core/library/record-store';
import { PACKED_FILE_MIN_EVENTS } from '../../src/shared/run/record/record-file';
import type { RunRecord } from '../../src/shared/run/record/record';
import { roundsFor, syntheticRecord } from '../../bench/timeline/synthetic-record';
import { tempDir } from '../setup/temp-dirs';

const dir = tempDir('bench-records');
const { readRecordFile } = createRequire(import.meta.url)('../../bench/records.cjs') as { readRecordFile: (file: string) => RunRecord };

const shape = { ranks: 2, warmup: 1, iters: 5 };
const record = syntheticRecord({ ...shape, rounds: roundsFor(PACKED_FILE_MIN_EVENTS, shape), name: 'records.cjs' });
const packedFile = join(dir, 'packed.run.json');
const jsonFile = join(dir, 'json.run.json');
writeRecordAtomic(packedFile, record);
writeFileSync(jsonFile, JSON.stringify(record));

describe('bench/records.cjs readRecordFile', () => {
  it('reads a packed record as clab reads it, and as the same record in JSON', () => {
    expect(record.events.length).toBeGreaterThanOrEqual(PACKED_FILE_MIN_EVENTS);
    expect(readFileSync(packedFile).subarray(0, 4096).toString('latin1')).toMatch(/^\{[^\n]*"packed":"clab\.packed-run"/);
    const packed = readRecordFile(packedFile);
    expect(packed.events).toHaveLength(record.events.length);
    expect(packed).toEqual(readRecord(packedFile));
    expect(readRecordFile(jsonFile)).toEqual(packed);
  });

  it("reads a packed record in a shell script's inline node -e, required by path from the repo root", () => {
    const r = spawnSync(
      process.execPath,
      [
        '-e',
        'const r = require("./bench/records.cjs").readRecordFile(process.argv[1]); console.log(r.status, r.events.length)',
        packedFile,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${record.status} ${record.events.length}\n`);
  });

  it('refuses a file that is no record in one line naming it', () => {
    const bad = join(dir, 'bad.run.json');
    writeFileSync(bad, '{"format": "clab.run", "version": 1, "steps": [}');
    expect(() => readRecordFile(bad)).toThrow(`${bad}: cannot read the run record: its JSON breaks at line 1, column 48`);
    expect(() => readRecordFile(undefined as unknown as string)).toThrow(
      "bench/records.cjs: readRecordFile expects a record file's path, got undefined",
    );
  });
});

describe('the GPU tests read their records through it', () => {
  it('gpu-tests.cjs passes a shipped scenario on cpu stand-ins, from the record it read', () => {
    const work = tempDir('bench-records-gpu-tests');
    const r = spawnSync(process.execPath, ['test/gpu/gpu-tests.cjs', '--only', 'all-in-one on 2 GPUs'], {
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, WORK: work, CLAB_TEST_BACKEND: 'cpu' },
    });
    expect(r.stdout).toMatch(/^PASS all-in-one_on_2_GPUs — \d+ steps, \d+ checked, #wrong 0/m);
    expect(r.stdout).toContain('test:gpu: 1 passed, 0 failed, 0 skipped');
    expect(r.status).toBe(0);
  });

  it('every script of bench/ and test/gpu/ parses (node --check, bash -n)', () => {
    const files = (folder: string, ext: string): string[] =>
      readdirSync(folder, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith(ext))
        .map((f) => join(folder, f));
    const cjs = [...files('bench', '.cjs'), ...files('test/gpu', '.cjs')];
    const sh = [...files('bench', '.sh'), ...files('test/gpu', '.sh')];
    expect(cjs).toEqual(expect.arrayContaining(['bench/records.cjs', 'test/gpu/gpu-tests.cjs', 'test/gpu/data-one-gpu.cjs']));
    for (const f of cjs) expect(spawnSync(process.execPath, ['--check', f], { encoding: 'utf8' }).stderr, f).toBe('');
    for (const f of sh) expect(spawnSync('bash', ['-n', f], { encoding: 'utf8' }).stderr, f).toBe('');
  });
});
