// A scenario that cannot fit is refused before anything runs, by both doors, with the numbers:
// no rank process is forked, no record is written.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LabService } from '../../../src/main/core/service/lab-service';
import { tempDir } from '../../setup/temp-dirs';

const dir = tempDir('memory');
// 2^34 float32 elements, in place: 64 GiB per rank.
const huge = JSON.stringify({ version: 1, name: 'huge', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 2 ** 34 }] });

describe('a scenario larger than the machine', () => {
  const service = new LabService({ runsDir: join(dir, 'runs') });
  afterAll(() => service.dispose());

  it('clab run refuses it with what it needs and what the host has, exit 2, before running', () => {
    const file = join(dir, 'huge.scenario.json');
    writeFileSync(file, huge);
    const out = join(dir, 'huge.run.json');
    const r = spawnSync(process.execPath, ['bin/clab.cjs', 'run', file, '--backend', 'cpu', '--out', out], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /the scenario does not fit in memory: needs 64 GiB per rank at "all_reduce" \(2 ranks: 128\.\d GiB.*\); this host has [\d.]+ [GM]iB available/,
    );
    expect(r.stdout).not.toContain('[Rank');
    expect(existsSync(out)).toBe(false);
  });

  it('the lab service refuses to start it, saying the same', async () => {
    await expect(service.startRun({ text: huge, file: null, backend: 'cpu', ranks: null })).rejects.toThrow(
      /does not fit in memory: needs 64 GiB per rank/,
    );
    expect(existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')) : []).toEqual([]);
  });
});
