// The runs folder as the doors open it: a record being read holds no other client up.
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readChunk, type ChunkReader } from '../../../src/main/core/read-capped';
import { SavedRuns } from '../../../src/main/core/saved-runs';
import { nodeUtf8 } from '../../../src/main/core/packed-runs';
import { unpackRecord } from '../../../src/shared/run/packed-run';
import { syntheticRecord } from '../../../bench/timeline/synthetic-record';
import { tempDir } from '../../setup/temp-dirs';
import { asWritten } from '../records-as-written';
import { shownStatus } from '../../../src/shared/results/expectation';

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
