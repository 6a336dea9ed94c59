// The runs folder as the doors open it: a record being read holds no other client up.
import { readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readChunk, type ChunkReader } from '../../../../src/main/core/ground/read-capped';
import { SavedRuns } from '../../../../src/main/core/library/saved-runs';
import { writeRecordAtomic } from '../../../../src/main/core/library/record-store';
import { nodeUtf8 } from '../../../../src/main/core/library/packed-runs';
import { unpackRecord } from '../../../../src/shared/run/record/packed-run';
import { syntheticRecord } from '../../../../bench/timeline/synthetic-record';
import { tempDir } from '../../../setup/temp-dirs';
import { asWritten } from '../../records-as-written';
import { shownStatus } from '../../../../src/shared/results/expectation';
import { MAX_RECORD_BYTES, recordTooLargeMessage } from '../../../../src/shared/run/record/record-text';
import { readNcclTestsLog } from '../../../../src/shared/results/nccl-tests-log';
import { importedRecord } from '../../../../src/shared/results/nccl-tests-record';

const dir = tempDir('saved-runs');

const MiB = 1024 * 1024;

describe('saved runs opened by a door', () => {
  it('answers another open, and a listing, while a large record is still being read', async () => {
    const large = join(dir, 'large.run.json');
    const small = join(dir, 'small.run.json');
    writeFileSync(large, asWritten(syntheticRecord({ ranks: 4, rounds: 400, warmup: 1, iters: 5, name: 'large' })));
    writeFileSync(small, asWritten(syntheticRecord({ ranks: 2, rounds: 1, warmup: 0, iters: 1, name: 'small' })));
    expect(statSync(large).size).toBeGreaterThan(2 * MiB); // read in more than one chunk
    // The large record's read is held at its second MiB until the other answers have come.
    let reached!: () => void;
    const atSecondMiB = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const read: ChunkReader = async (handle, into, position) => {
      if (position >= MiB) {
        reached();
        await released;
      }
      return readChunk(handle, into, position);
    };
    const saved = new SavedRuns(dir, null, () => {}, read);
    const answered: string[] = [];
    const largeOpened = saved.openPacked(large).then((packed) => answered.push(unpackRecord(packed, nodeUtf8).id));
    await atSecondMiB;
    answered.push(unpackRecord(await saved.openPacked(small), nodeUtf8).id);
    answered.push(`listed ${(await saved.list()).length}`);
    expect(answered).toEqual(['synthetic-2x1', 'listed 2']); // the large one still being read
    release();
    await largeOpened;
    expect(answered).toEqual(['synthetic-2x1', 'listed 2', 'synthetic-4x400']);
  });
});

describe('saved runs as a listing shows them', () => {
  it("lists a large run meant to fail with how it failed, from the file's head", async () => {
    const folder = tempDir('saved-runs-expected');
    const r = syntheticRecord({ ranks: 4, rounds: 40, warmup: 1, iters: 5, name: 'mistake' });
    const note = 'expected failure seen: the deliberate mistake in step 0 (x) made the run fail';
    writeFileSync(join(folder, 'mistake.run.json'), asWritten({ ...r, status: 'error', expectation: { steps: [0], met: true, note } }));
    expect(statSync(join(folder, 'mistake.run.json')).size).toBeGreaterThan(4 * 64 * 1024); // past the head a listing reads
    const [listed] = await new SavedRuns(folder).list();
    expect(listed).toMatchObject({ name: 'mistake', status: 'error', expectation: { met: true, note } });
    expect(shownStatus(listed)).toBe('passed');
  });
});

describe('saved runs listed from their heads', () => {
  /** A record as older cores wrote it: the scenario and plan before the summary, the head cut there. */
  const olderHead = (name: string) =>
    `{"format":"clab.run","version":1,"id":"old","createdAt":"2026-10-01T00:00:00.000Z","finishedAt":"2026-10-01T00:01:00.000Z","scenarioFile":null,"scenario":{"name":"${name}"},"plan":{"steps":[`;

  it('lists an older record too large to read whole for its summary, with what its head tells, marked partial, reading no more', async () => {
    const folder = tempDir('saved-runs-older');
    const file = join(folder, 'older.run.json');
    writeFileSync(file, olderHead('older and large'));
    truncateSync(file, 65 * MiB); // past the 64 MiB the listing once read whole, and gave up past
    let chunks = 0;
    const read: ChunkReader = (handle, into, position) => (chunks++, readChunk(handle, into, position));
    const [listed] = await new SavedRuns(folder, null, () => {}, read).list();
    expect(listed).toEqual({
      path: file,
      name: 'older and large',
      createdAt: '2026-10-01T00:00:00.000Z',
      finishedAt: '2026-10-01T00:01:00.000Z',
      status: 'unknown',
      world: null,
      backend: null,
      bytes: 65 * MiB,
      partial: true,
    });
    expect(chunks).toBe(0);
  });

  it('reads a small older record whole for its summary', async () => {
    const folder = tempDir('saved-runs-small-older');
    const r = syntheticRecord({ ranks: 2, rounds: 30, warmup: 1, iters: 2, name: 'small older' });
    const { format, version, id, createdAt, finishedAt, scenarioFile, scenario, plan, ...rest } = r;
    writeFileSync(
      join(folder, 'small.run.json'),
      JSON.stringify({ format, version, id, createdAt, finishedAt, scenarioFile, scenario, plan, ...rest }),
    );
    expect(statSync(join(folder, 'small.run.json')).size).toBeGreaterThan(64 * 1024);
    const [listed] = await new SavedRuns(folder).list();
    expect(listed).toMatchObject({ name: 'small older', status: r.status, world: 2, backend: r.environment.backend });
    expect(listed.partial).toBeUndefined();
  });

  it('opens records up to the bound every door shares, and refuses one past it in one line saying the bound', async () => {
    const folder = tempDir('saved-runs-bound');
    const huge = join(folder, 'huge.run.json');
    writeFileSync(huge, asWritten(syntheticRecord({ ranks: 2, rounds: 1, warmup: 0, iters: 1, name: 'huge' })));
    truncateSync(huge, MAX_RECORD_BYTES + 1);
    const saved = new SavedRuns(folder);
    expect((await saved.list()).map((r) => [r.name, r.bytes])).toEqual([['huge', MAX_RECORD_BYTES + 1]]);
    await expect(saved.openPacked(huge)).rejects.toThrow(recordTooLargeMessage(huge, MAX_RECORD_BYTES + 1));
    expect(recordTooLargeMessage('huge.run.json', MAX_RECORD_BYTES + 1)).toBe(
      'huge.run.json: 256.0 MiB is larger than the 256 MiB the lab opens (the app and clab alike)',
    );
    // Past the 64 MiB the doors once stopped at: read (here: found to be no JSON), not refused by its size.
    truncateSync(huge, 65 * MiB);
    await expect(saved.open(huge)).rejects.toThrow(/huge\.run\.json: cannot read the run record: its JSON breaks/);
  });
});

describe('saved runs written packed (many events)', () => {
  it('are listed from the summary line, reading only the head, and opened as the page reads them, packed as they lie', async () => {
    const folder = tempDir('saved-runs-packed');
    const cache = tempDir('saved-runs-packed-cache');
    const file = join(folder, 'packed.run.json');
    const r = syntheticRecord({ ranks: 4, rounds: 400, warmup: 1, iters: 5, name: 'packed sweep' });
    writeRecordAtomic(file, { ...r, expectation: { steps: [0], met: false, note: 'no failure where one was expected' } });
    expect(statSync(file).size).toBeGreaterThan(MiB);
    let chunks = 0;
    const read: ChunkReader = (handle, into, position) => (chunks++, readChunk(handle, into, position));
    const saved = new SavedRuns(folder, cache, () => {}, read);
    const [listed] = await saved.list();
    expect(listed).toEqual({
      path: file,
      name: 'packed sweep',
      createdAt: r.createdAt,
      finishedAt: r.finishedAt,
      status: r.status,
      expectation: { met: false, note: 'no failure where one was expected' },
      world: 4,
      backend: r.environment.backend,
      bytes: statSync(file).size,
    });
    expect(chunks).toBe(0);
    const packed = await saved.openPacked(file);
    expect(unpackRecord(packed, nodeUtf8).events).toEqual(r.events);
    // The file's own packing: no copy kept on disk beside it.
    expect(readdirSync(cache)).toEqual([]);
    expect((await saved.open(file)).events.length).toBe(r.events.length);
  });
});

describe('saved runs read in by clab import', () => {
  it('are listed with what was read and by which program; a run of the lab is not', async () => {
    const folder = tempDir('saved-runs-imported');
    const file = 'test/shared/export/nccl-tests-samples/all_reduce-4ranks.log';
    const results = readNcclTestsLog(file, readFileSync(file, 'utf8'), {});
    const record = importedRecord(results, { file, id: 'imported-1', importedAt: '2026-11-27T00:00:00.000Z' });
    writeRecordAtomic(join(folder, 'ar-imported.run.json'), record);
    writeFileSync(join(folder, 'lab.run.json'), asWritten(syntheticRecord({ ranks: 2, rounds: 1, warmup: 0, iters: 1, name: 'lab' })));
    const listed = await new SavedRuns(folder).list();
    const byName = new Map(listed.map((r) => [r.path.slice(folder.length + 1), r]));
    expect(byName.get('ar-imported.run.json')?.imported).toEqual({ source: 'nccl-tests text log', program: 'all_reduce_perf' });
    expect(byName.get('lab.run.json')?.imported).toBeUndefined();
  });
});
