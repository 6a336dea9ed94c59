// The mistakes gallery through `clab` as a learner runs it: validate warns and exits 0; a run that
// fails where it was meant to exits 0 and says so.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../setup/temp-dirs';

const clab = (...args: string[]) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 60_000 });
const gallery = readdirSync('scenarios/mistakes')
  .filter((f) => f.endsWith('.scenario.json'))
  .map((f) => `scenarios/mistakes/${f}`);

describe('clab and the mistakes gallery', () => {
  it('has the seven mistakes', () => {
    expect(gallery.map((f) => f.split('/').pop()!.replace('.scenario.json', '')).sort()).toEqual([
      'mismatched-collective',
      'mismatched-count',
      'mismatched-dtype',
      'recv-wrong-peer',
      'reduce-scatter-unwritten',
      'send-without-recv',
      'wrong-root',
    ]);
  });

  it('validate warns about each deliberate mistake and exits 0', () => {
    for (const file of gallery) {
      const r = clab('validate', file);
      expect(r.status, file).toBe(0);
      expect(r.stdout).toMatch(/OK — .* \(1 warning\)/);
      expect(r.stderr).toMatch(/: warning: steps\[\d\]\.(perRank|read): /);
    }
  });

  it('run says the expected failure was seen, as a pass, and exits 0', () => {
    const out = join(tempDir('mistakes'), 'root.run.json');
    const r = clab('run', 'scenarios/mistakes/wrong-root.scenario.json', '--backend', 'cpu', '--out', out);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('PASSED: expected failure seen: the deliberate mistake in step 0');
    expect(r.stdout).toContain('no step checked on 2 ranks (cpu)');
    expect(r.stdout).not.toContain('0/0');
    expect(r.stdout).toContain('broadcast(root 1, 3 × float32 = 12 B, #2)');
    expect(r.stdout).toContain('Lesson — what you see: On cpu ranks:');
    expect(r.stdout).toContain('  fix: Pass the same root everywhere');
    const replay = clab('replay', out);
    expect(replay.status).toBe(0);
  });
});
