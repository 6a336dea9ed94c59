// The runs folder as `clab serve` lists and opens it: a FIFO or an oversized file named *.run.json
// never stalls or swamps the server, and a listing reads each record's head, not every record.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LabService } from '../../../src/main/core/lab-service';
import { MAX_OPENED_RECORD_BYTES } from '../../../src/main/core/saved-runs';
import type { RunRecord } from '../../../src/shared/run/record';
import { syntheticRecord } from '../../../bench/timeline/synthetic-record';

const runsDir = mkdtempSync(join(tmpdir(), 'clab-runs-folder-'));
const service = new LabService({ runsDir });
afterAll(async () => {
  await service.dispose();
  rmSync(runsDir, { recursive: true, force: true });
});

/** The record's fields in the order a run writes them: the listing's summary first. */
function asWritten(r: RunRecord): string {
  const { format, version, id, createdAt, finishedAt, scenarioFile, world, status, environment, error, ...rest } = r;
  return JSON.stringify({ format, version, id, createdAt, finishedAt, scenarioFile, world, status, environment, error, ...rest });
}

describe('the runs folder of clab serve', () => {
  it('passes over a FIFO named *.run.json: listing and opening never block on it', async () => {
    writeFileSync(join(runsDir, 'good.run.json'), asWritten(syntheticRecord({ ranks: 2, rounds: 1, warmup: 0, iters: 1, name: 'good' })));
    const fifo = join(runsDir, 'stuck.run.json');
    execFileSync('mkfifo', [fifo]);
    const listed = await service.listRuns();
    expect(listed.map((r) => r.name)).toEqual(['good']);
    await expect(service.openRun({ path: fifo })).rejects.toThrow(/stuck\.run\.json is a FIFO \(named pipe\), not a regular file/);
    expect(() => service.openRunPacked({ path: fifo })).toThrow(/is a FIFO/);
    rmSync(fifo);
  });

  it('refuses to load a record past the bound, by its size, without reading it', async () => {
    const big = join(runsDir, 'huge.run.json');
    closeSync(openSync(big, 'w'));
    truncateSync(big, MAX_OPENED_RECORD_BYTES + 1); // sparse: nothing to read but zeros
    await expect(service.openRun({ path: big })).rejects.toThrow(/huge\.run\.json: \d+ bytes is larger than the 67108864 bytes \(64 MiB\)/);
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
    });
    await expect(service.openRun({ path: file })).rejects.toThrow(/cannot read the run record/);
  });
});
