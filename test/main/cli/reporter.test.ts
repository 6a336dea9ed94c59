// What `clab run` prints comes partly from the scenario (labels) and the ranks: a control
// character there is shown as an escape, never sent to the terminal.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../setup/temp-dirs';

describe('clab run output', () => {
  it("shows a label's escape sequence as \\e instead of clearing the screen", () => {
    const dir = tempDir('reporter');
    const file = join(dir, 'esc.scenario.json');
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        name: 'esc',
        world: { ranks: 2 },
        steps: [{ op: 'all_reduce', count: 3, label: 'sum\u001b[2J\rover' }],
      }),
    );
    const r = spawnSync(process.execPath, ['bin/clab.cjs', 'run', file, '--backend', 'cpu', '--out', join(dir, 'esc.run.json')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('[Rank 0] sum\\e[2J\\rover');
    expect(r.stdout).not.toMatch(/[\u001b\r]/);
  });
});
