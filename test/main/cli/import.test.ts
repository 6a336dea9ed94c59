// `clab import` as a user runs it: an nccl-tests log from elsewhere saved in the runs folder as an
// imported record, replayed, and compared with a sweep the lab ran on cpu ranks; bad input refused
// in one line.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRecordSchema } from '../../../src/shared/run/record/record.js';
import { tempDir } from '../../setup/temp-dirs';

const clab = (...args: string[]) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 60_000 });
const SAMPLES = resolve('test/shared/export/nccl-tests-samples');
const dir = tempDir('import');

describe('clab import', () => {
  it('saves an nccl-tests log in the runs folder as an imported record that replay shows and compare matches with a lab sweep', () => {
    const runs = join(dir, 'runs');
    const imported = clab('import', join(SAMPLES, 'all_reduce-4ranks.log'), '--runs', runs);
    expect(imported.stderr).toBe('');
    expect(imported.status).toBe(0);
    expect(imported.stdout).toMatch(
      /^imported 6 sizes of all_reduce_perf \(in-place and out-of-place\) on 4 ranks from nccl-tests text log\n/,
    );
    const [name] = readdirSync(runs);
    expect(name).toMatch(/^all-reduce-perf-imported-.*\.run\.json$/);
    const file = join(runs, name);
    const record = runRecordSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    expect(record.imported).toMatchObject({ source: 'nccl-tests text log', file: 'all_reduce-4ranks.log', program: 'all_reduce_perf' });

    const replay = clab('replay', file);
    expect(replay.status).toBe(0);
    expect(replay.stdout).toMatch(
      /^# imported from \S+ \(nccl-tests text log, all_reduce_perf[^)]*\) on \S+: measured elsewhere; no values checked by the lab, no timeline$/m,
    );
    expect(replay.stdout).not.toMatch(/^time to answer:/m);
    expect(replay.stdout).toMatch(/^ +1048576 +262144 +float32 +sum +- +187\.2 +5\.60 +8\.40 +0$/m);

    // The same sweep run here (all_reduce's default half, in place) is matched size by size.
    const scenario = join(dir, 'ar.scenario.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        version: 1,
        name: 'ar',
        world: { ranks: 4 },
        steps: [{ op: 'sweep', collective: 'all_reduce', minBytes: 1024, maxBytes: 1048576, factor: 4, iters: 3 }],
      }),
    );
    const lab = join(dir, 'ar.run.json');
    expect(clab('run', scenario, '--backend', 'cpu', '--out', lab).status).toBe(0);
    const compare = clab('compare', lab, file, '--json');
    expect(compare.status).toBe(0);
    const steps = (JSON.parse(compare.stdout) as { steps: { label: string; b: { busbw: number | null } }[] }).steps;
    expect(steps.map((s) => s.label)).toEqual(
      ['1 KiB', '4 KiB', '16 KiB', '64 KiB', '256 KiB', '1 MiB'].map((s) => `all_reduce sweep ${s}`),
    );
    expect(steps[5].b.busbw).toBe(8.44);
  });

  it('reads -J JSON, and writes the record where --out says', () => {
    const out = join(dir, 'a2a.run.json');
    const r = clab('import', join(SAMPLES, 'alltoall-2hosts.json'), '--out', out);
    expect(r.status).toBe(0);
    expect(runRecordSchema.parse(JSON.parse(readFileSync(out, 'utf8'))).imported?.source).toBe('nccl-tests JSON');
  });

  it('refuses a file that is not nccl-tests output in one line naming it, the place and what was expected', () => {
    const log = join(dir, 'other.log');
    writeFileSync(log, 'Epoch 1/10 loss 0.31\n');
    const r = clab('import', log, '--runs', join(dir, 'none'));
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `clab: ${log}: line 1: expected nccl-tests' column header ("#  size  count  type  redop  root  time  algbw  busbw #wrong …") before the first row\n`,
    );
    const json = join(dir, 'other.json');
    writeFileSync(json, '{"version": 3, "results": [');
    const j = clab('import', json);
    expect(j.status).toBe(2);
    expect(j.stderr).toMatch(
      new RegExp(`^clab: ${json.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not JSON, as nccl-tests -J writes: [^\\n]+\\n$`),
    );
  });
});
