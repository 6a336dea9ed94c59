// The runs folder as `clab serve` lists and opens it: a FIFO or an oversized file named *.run.json
// never stalls or swamps the server, and a listing reads each record's head, not every record.
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { LabService } from '../../../src/main/core/service/lab-service';
import { keepPackedForLaterOpens } from '../../../src/main/core/library/saved-runs';
import { MAX_RECORD_BYTES } from '../../../src/shared/run/record/record-text';
import { unpackRecord } from '../../../src/shared/run/record/packed-run';
import { nodeUtf8 as utf8 } from '../../../src/main/core/library/packed-runs';
import { syntheticRecord } from '../../../bench/timeline/synthetic-record';
import { asWritten } from '../records-as-written';

const runsDir = mkdtempSync(join(tmpdir(), 'clab-runs-folder-'));
const service = new LabService({ runsDir });
afterAll(async () => {
  await service.dispose();
  rmSync(runsDir, { recursive: true, force: true });
});

describe('the runs folder of clab serve', () => {
  it('passes over a FIFO named *.run.json: listing and opening never block on it', async () => {
    writeFileSync(join(runsDir, 'good.run.json'), asWritten(syntheticRecord({ ranks: 2, rounds: 1, warmup: 0, iters: 1, name: 'good' })));
    const fifo = join(runsDir, 'stuck.run.json');
    execFileSync('mkfifo', [fifo]);
    const listed = await service.listRuns();
    expect(listed.map((r) => r.name)).toEqual(['good']);
    await expect(service.openRun({ path: fifo })).rejects.toThrow(/stuck\.run\.json is a FIFO \(named pipe\), not a regular file/);
    await expect(service.openRunPacked({ path: fifo })).rejects.toThrow(/is a FIFO/);
    rmSync(fifo);
  });

  it('refuses to load a record past the bound, by its size, without reading it', async () => {
    const big = join(runsDir, 'huge.run.json');
    closeSync(openSync(big, 'w'));
    truncateSync(big, MAX_RECORD_BYTES + 1); // sparse: nothing to read but zeros
    await expect(service.openRun({ path: big })).rejects.toThrow(
      /huge\.run\.json: 256\.0 MiB is larger than the 256 MiB the lab opens \(the app and clab alike\)$/,
    );
    expect((await service.listRuns()).map((r) => r.name)).toEqual(['good']);
    rmSync(big);
  });

  it('lists a run from the head of its file rather than parsing the whole record', async () => {
    const file = join(runsDir, 'headed.run.json');
    const record = syntheticRecord({ ranks: 4, rounds: 400, warmup: 1, iters: 5, name: 'headed' });
    const text = asWritten({ ...record, createdAt: '2026-11-25T00:00:00.000Z' });
    expect(text.length).toBeGreaterThan(1024 * 1024);
    writeFileSync(file, text);
    // The record's tail is spoiled, its size and time kept: a listing that parsed whole records would drop it.
    const { mtime, atime } = statSync(file);
    const fd = openSync(file, 'r+');
    writeSync(fd, 'X'.repeat(64), text.length - 100);
    closeSync(fd);
    utimesSync(file, atime, mtime);
    const listed = await service.listRuns();
    expect(listed.find((r) => r.name === 'headed')).toEqual({
      path: file,
      name: 'headed',
      createdAt: '2026-11-25T00:00:00.000Z',
      finishedAt: record.finishedAt,
      status: record.status,
      world: 4,
      backend: record.environment.backend,
      bytes: Buffer.byteLength(text),
    });
    await expect(service.openRun({ path: file })).rejects.toThrow(/cannot read the run record/);
  });

  it('keeps a large run packed on disk, so that the next lab opens it without reading its JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'clab-runs-packed-'));
    const cache = join(dir, 'cache');
    const file = join(dir, 'large.run.json');
    const text = asWritten(syntheticRecord({ ranks: 4, rounds: 400, warmup: 1, iters: 5, name: 'large' }));
    expect(text.length).toBeGreaterThan(1024 * 1024);
    writeFileSync(file, text);
    const labs = [0, 1, 2, 3].map(() => new LabService({ runsDir: dir, packedRunDir: cache }));
    const parse = vi.spyOn(JSON, 'parse');
    // This record's text only: another test's lab may still be packing its newest run meanwhile.
    const parsedRecords = () => parse.mock.calls.filter(([t]) => t === text).length;
    const entries = () => readdirSync(cache).filter((f) => f.endsWith('.pack'));
    try {
      const packed = await labs[0].openRunPacked({ path: file });
      expect(parsedRecords()).toBe(1);
      expect(entries()).toHaveLength(1);
      const next = await labs[1].openRunPacked({ path: file });
      expect(parsedRecords()).toBe(1); // the next lab read the packing, not the JSON
      expect(Buffer.from(next).equals(Buffer.from(packed))).toBe(true);
      expect(unpackRecord(next, utf8)).toEqual(await labs[1].openRun({ path: file }));
      parse.mockClear();

      // Touched (its times moved, its bytes as they were): found by the SHA-256 of its bytes.
      const later = new Date(Date.now() + 60_000);
      utimesSync(file, later, later);
      expect(Buffer.from(await labs[3].openRunPacked({ path: file })).equals(Buffer.from(packed))).toBe(true);
      expect(parsedRecords()).toBe(0);

      // The file changed in place, its size and times put back: its change time moved, so the
      // packing is not its version any more: read again, and refused as broken.
      const { mtime, atime } = statSync(file);
      const fd = openSync(file, 'r+');
      writeSync(fd, '}', text.length - 1);
      closeSync(fd);
      utimesSync(file, atime, mtime);
      await expect(labs[2].openRunPacked({ path: file })).rejects.toThrow(/large\.run\.json: cannot read the run record/);

      // A deleted run takes its packing with it.
      writeFileSync(file, text);
      await labs[2].openRunPacked({ path: file });
      expect(entries()).toHaveLength(1);
      await labs[2].deleteRun({ file: 'large.run.json' });
      expect(entries()).toHaveLength(0);
    } finally {
      parse.mockRestore();
      for (const lab of labs) await lab.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('packs a large run that `clab run` saved for the next open, and leaves a small one be', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'clab-runs-saved-'));
    const cache = join(dir, 'cache');
    try {
      const large = join(dir, 'large.run.json');
      const small = join(dir, 'small.run.json');
      writeFileSync(large, asWritten(syntheticRecord({ ranks: 4, rounds: 400, warmup: 1, iters: 5, name: 'large' })));
      writeFileSync(small, asWritten(syntheticRecord({ ranks: 2, rounds: 1, warmup: 0, iters: 1, name: 'small' })));
      const warnings: string[] = [];
      await keepPackedForLaterOpens(small, (m) => warnings.push(m), cache);
      expect(existsSync(cache)).toBe(false);
      await keepPackedForLaterOpens(large, (m) => warnings.push(m), cache);
      expect(readdirSync(cache).filter((f) => f.endsWith('.pack'))).toHaveLength(1);
      expect(warnings).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
