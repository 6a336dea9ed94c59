// `clab run SCENARIO --nccl A --nccl B` through the bundled CLI (npm run build:cli): the arguments
// an A/B takes and what it refuses, each before any rank starts. No NCCL here: its runs are
// test/main/core/nccl-ab's.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../setup/temp-dirs';
import { buildFakeNccl } from '../../fixtures/fake-nccl';

const clab = (...args: string[]) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 60_000 });
const dir = tempDir('nccl-ab-cli');
const fake = (side: string, code: number, banner: string) => {
  mkdirSync(join(dir, side));
  return buildFakeNccl(join(dir, side), code, banner);
};
const a = fake('a', 22803, '2.28.3+cuda13.0');
const b = fake('b', 23007, '2.30.7+cuda13.0');
const scenario = 'scenarios/nccl-ab.scenario.json';
const CPU = 'clab: --nccl twice compares two NCCL libraries, and the cpu backend loads none: run it on the nccl backend';

describe('clab run --nccl A --nccl B', () => {
  it('is refused on the cpu backend in one line, runs nothing and leaves no folder', () => {
    const out = join(dir, 'cpu-ab');
    const r = clab('run', scenario, '--nccl', a, '--nccl', b, '--backend', 'cpu', '--out', out);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(CPU);
    expect(r.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
  });

  it('is refused where auto finds no GPU and would run on cpu, and the folder made for it goes', () => {
    const out = join(dir, 'auto-ab');
    const r = clab('run', scenario, '--nccl', a, '--nccl', b, '--out', out);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(CPU);
    expect(r.stdout).not.toContain('[Rank');
    expect(existsSync(out)).toBe(false);
  });

  it('checks B before A runs: a path with no file is named', () => {
    const missing = join(dir, 'none', 'libnccl.so.2');
    const r = clab('run', scenario, '--nccl', a, '--nccl', missing, '--backend', 'nccl');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`clab: the NCCL library ${JSON.stringify(missing)}: no such file`);
  });

  it.each([
    ['0', 'expected a whole number of repeats from 1 to 100'],
    ['101', 'expected a whole number of repeats from 1 to 100'],
    ['2.5', 'expected a whole number of repeats from 1 to 100'],
  ])('refuses --repeats %s', (repeats, message) => {
    const r = clab('run', scenario, '--nccl', a, '--nccl', b, '--repeats', repeats);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(message);
  });

  it('refuses --repeats without a second --nccl, and a third --nccl', () => {
    const once = clab('run', scenario, '--nccl', a, '--repeats', '3', '--backend', 'cpu');
    expect(once.status).toBe(2);
    expect(once.stderr.trim()).toBe('clab: --repeats goes with --nccl twice (an A/B of two NCCL libraries)');
    const thrice = clab('run', scenario, '--nccl', a, '--nccl', b, '--nccl', a);
    expect(thrice.status).toBe(2);
    expect(thrice.stderr.trim()).toBe('clab: --nccl goes once (the library a run loads) or twice (an A/B of two); got 3');
  });

  it('refuses --step and --listen with an A/B', () => {
    const r = clab('run', scenario, '--nccl', a, '--nccl', b, '--step', '--listen', '127.0.0.1:0');
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe("clab: --nccl twice runs the scenario on this host's GPUs, without --step, --listen");
  });
});
