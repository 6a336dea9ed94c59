// The `clab` command as a user runs it: the built bundle, real processes.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../setup/temp-dirs';
import { LINK_VERSION } from '../../../src/shared/run/hosts/hosts';
import { PROTOCOL_VERSION } from '../../../src/shared/run/rank/protocol';

const clab = (...args: string[]) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 60_000 });
const dir = tempDir('cli');

describe('clab', () => {
  it('prints help for each command', () => {
    for (const cmd of ['run', 'validate', 'replay', 'export', 'compare', 'explain', 'serve', 'doctor']) {
      const r = clab(cmd, '--help');
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`Usage: clab ${cmd}`);
    }
  });

  it('serve --help says what the token is: made at start, good until the server stops, not one-time', () => {
    const r = clab('serve', '--help');
    expect(r.stdout).not.toContain('one-time');
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('a token made when it starts (good until it stops');
  });

  it('--version prints the package version and the link and rank protocol versions a worker must share', () => {
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    for (const flag of ['--version', '-V']) {
      const r = clab(flag);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`clab ${version} (link ${LINK_VERSION}, rank protocol ${PROTOCOL_VERSION})\n`);
    }
  });

  it('validate --gpus says it could not check where CUDA sees no GPU, and exits 1 rather than OK', () => {
    const r = spawnSync(process.execPath, ['bin/clab.cjs', 'validate', '--gpus', 'scenarios/all-in-one.scenario.json'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, CUDA_VISIBLE_DEVICES: '' },
    });
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain('OK');
    expect(r.stdout).toContain('scenarios/all-in-one.scenario.json: valid — "All-in-one collectives"');
    expect(r.stdout).toContain('NOT checked against GPUs');
    expect(r.stderr).toContain("scenarios/all-in-one.scenario.json: could not check against this machine's GPUs: CUDA sees no GPU here");
    // Without --gpus nothing is claimed about GPUs.
    expect(clab('validate', 'scenarios/all-in-one.scenario.json').stdout).toMatch(
      /: OK — "All-in-one collectives", \d+ steps on 2 ranks\n$/,
    );
  });

  it('exits 2 on a bad option value', () => {
    const r = clab('run', 'scenarios/all-in-one.scenario.json', '--ranks', '0');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('expected a whole number of ranks from 1 to 64');
  });

  it('validate reports file:line:column, path and expectation, and exits 2', () => {
    const file = join(dir, 'broken.scenario.json');
    writeFileSync(
      file,
      '{\n  "version": 1,\n  "name": "b",\n  "world": { "ranks": 2 },\n  "steps": [\n    { "op": "all_reduce", "count": "three" }\n  ]\n}\n',
    );
    const r = clab('validate', file);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${file}:6:36: error: steps[0].count: expected a whole number ≥ 0, got "three"`);
  });

  it('run checks, prints learner lines, saves a record that replay prints again', () => {
    const out = join(dir, 'all.run.json');
    const r = clab('run', 'scenarios/all-in-one.scenario.json', '--ranks', '2', '--backend', 'cpu', '--out', out);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('[Rank 0] broadcast (root 0): [1, 2, 3] ✓');
    expect(r.stdout).toContain('[Rank 1] all_reduce sum: [2, 4, 6] ✓');
    expect(r.stdout).toMatch(/PASSED: \d+\/\d+ checked steps correct on 2 ranks \(cpu\)/);
    const record = JSON.parse(readFileSync(out, 'utf8'));
    expect(record.format).toBe('clab.run');
    const replay = clab('replay', out);
    expect(replay.status).toBe(0);
    expect(replay.stdout).toContain('[Rank 1] all_reduce sum: [2, 4, 6] ✓');
    expect(replay.stdout).toContain('# replay of scenarios/all-in-one.scenario.json');
  });

  it('prints an nccl-tests style table for a sweep', () => {
    const file = join(dir, 'sweep.scenario.json');
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        name: 's',
        world: { ranks: 2 },
        steps: [{ op: 'sweep', collective: 'all_gather', minBytes: 64, maxBytes: 4096, factor: 4 }],
      }),
    );
    const r = clab('run', file, '--backend', 'cpu', '--out', join(dir, 's.run.json'));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/#\s+size\s+count\s+type\s+redop\s+root\s+time\s+algbw\s+busbw\s+#wrong/);
    expect(r.stdout).toMatch(/^\s+4096\s+1024\s+float32\s+none\s+-\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+0$/m);
    expect(r.stdout).toContain('# Out of bounds values : 0 OK');
  });

  it('replay refuses a file that is not a run record', () => {
    const file = join(dir, 'not-a-run.json');
    writeFileSync(file, '{"format":"something"}');
    const r = clab('replay', file);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/not a valid run record: format/);
  });
});
