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
