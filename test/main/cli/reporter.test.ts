// What `clab run` prints comes partly from the scenario (labels) and the ranks: a control
// character there is shown as an escape, never sent to the terminal. After an nccl run that did
// not ask to see inside NCCL, it says how to ask.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LiveReporter } from '../../../src/main/cli/reporter';
import { INSIDE_NCCL_NOT_ASKED } from '../../../src/shared/run/nccl/inside-nccl';
import { allReduce, buildRecord, CPU_ENVIRONMENT } from '../../shared/export/records';
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

  it('says on stderr, once, how to ask to see inside NCCL after an nccl run whose scenario did not, and not after one that did', () => {
    const finished = (insideNccl: boolean) => {
      const record = buildRecord({
        world: 2,
        environment: { ...CPU_ENVIRONMENT, backend: 'nccl' },
        steps: [{ label: 'all_reduce', action: allReduce(4), timesUs: [[10], [10]] }],
      });
      if (insideNccl) record.plan.insideNccl = true;
      const out: string[] = [];
      const err: string[] = [];
      new LiveReporter(record.plan, { tty: false, verbose: false, write: (l) => out.push(l), writeErr: (l) => err.push(l) }).finish(record);
      return { out, err };
    };
    const plain = finished(false);
    expect(plain.err).toEqual([INSIDE_NCCL_NOT_ASKED]);
    expect(plain.out.join('\n')).not.toContain('insideNccl');
    expect(finished(true).err).toEqual([]);
  });
});
