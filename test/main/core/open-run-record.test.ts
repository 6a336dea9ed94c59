// A run record opened through the desktop door (Open…, Open Recent, drop): a broken one is said to
// be a broken run record, with where its JSON breaks, never opened as a scenario.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LabService } from '../../../src/main/core/service/lab-service';
import { syntheticRecord } from '../../../bench/timeline/synthetic-record';

const dir = mkdtempSync(join(tmpdir(), 'clab-open-record-'));
const files = { chooseSavePath: async () => null, chooseOpenPath: async () => null };
const service = new LabService({ runsDir: join(dir, 'runs'), files });
afterAll(async () => {
  await service.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const text = JSON.stringify(syntheticRecord({ ranks: 2, rounds: 1, warmup: 0, iters: 1, name: 'opened' }));
const cut = text.slice(0, text.lastIndexOf(',"steps":') + 1);

describe('a run record opened by path', () => {
  it('opens a whole one as a replay', async () => {
    const file = join(dir, 'whole.run.json');
    writeFileSync(file, text);
    expect(await service.openPath({ path: file })).toMatchObject({ kind: 'run', path: file });
  });

  it('says where a truncated one breaks, naming it by its file name, not its absolute path', async () => {
    const file = join(dir, 'cut.run.json');
    writeFileSync(file, cut);
    const refused = await service.openPath({ path: file }).catch((e: Error) => e.message);
    expect(refused).not.toContain(dir);
    await expect(service.openPath({ path: file })).rejects.toThrow(
      `cut.run.json: cannot read the run record: its JSON breaks at line 1, column ${cut.length + 1} (character ${cut.length} of ${cut.length}): the file ends too early`,
    );
  });

  it('takes a file named *.run.json for a record even when its first bytes are gone', async () => {
    const file = join(dir, 'headless.run.json');
    writeFileSync(file, '');
    await expect(service.openPath({ path: file })).rejects.toThrow(
      /headless\.run\.json: cannot read the run record: its JSON breaks at line 1, column 1/,
    );
  });
});
