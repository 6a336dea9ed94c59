// `clab run --nccl PATH` and `clab doctor --nccl PATH` through the bundled CLI (npm run build:cli):
// a path that is no library file is refused before anything runs, named, with exit status 2; doctor
// lists the one named, read from its file.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../setup/temp-dirs';
import { buildFakeNccl } from '../../fixtures/fake-nccl';

const clab = (...args: string[]) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 60_000 });
const dir = tempDir('nccl-option');

describe('clab run --nccl', () => {
  it('refuses a path with no file, naming it, before any rank starts', () => {
    const missing = join(dir, 'no', 'libnccl.so.2');
    const r = clab(
      'run',
      'scenarios/all-in-one.scenario.json',
      '--backend',
      'cpu',
      '--ranks',
      '2',
      '--nccl',
      missing,
      '--out',
      join(dir, 'x.run.json'),
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      `clab: the NCCL library ${JSON.stringify(missing)}: no such file; expected an NCCL library file (libnccl.so.2)`,
    );
    expect(r.stdout).not.toContain('[Rank');
  });

  it('refuses a folder', () => {
    const r = clab('run', 'scenarios/all-in-one.scenario.json', '--backend', 'cpu', '--nccl', dir, '--out', join(dir, 'y.run.json'));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${JSON.stringify(dir)}: a directory`);
  });
});

describe('clab doctor --nccl', () => {
  it('lists the library named with its version and what that version offers', () => {
    const fake = buildFakeNccl(dir, 22905, '2.29.5+cuda12.9');
    const r = clab('doctor', '--nccl', fake);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`^  ${fake.replace(/[.]/g, '\\.')}  \\[--nccl\\]  NCCL 2\\.29\\.5 for CUDA 12\\.9  ← runs load this one$`, 'm'),
    );
    expect(r.stdout).toContain("NCCL 2.29.5: profiler plug-in v1–v6 (the lab's as v6), tuner plug-in v2–v5 (the lab's as v5)");
  });

  it('refuses a path with no file', () => {
    const r = clab('doctor', '--nccl', join(dir, 'missing.so'));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--nccl');
    expect(r.stderr).toContain('missing.so');
  });
});
