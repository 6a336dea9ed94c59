// Explicit values through `clab` as a learner runs them on cpu ranks: every collective's output
// checked against the numbers written, a wrong output flagged with the value it should hold, and
// a list that does not fit refused with its file, JSON path and what was expected.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../setup/temp-dirs';

const clab = (...args: string[]) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 60_000 });
const dir = tempDir('values');
const scenario = (name: string, steps: unknown[]) => {
  const file = join(dir, `${name}.scenario.json`);
  writeFileSync(file, JSON.stringify({ version: 1, name, world: { ranks: 3 }, steps }, null, 2));
  return file;
};

describe('clab and explicit values', () => {
  it('runs the shipped example on 3 cpu ranks, every output as the values give it', () => {
    const r = clab(
      'run',
      'scenarios/explicit-values.scenario.json',
      '--backend',
      'cpu',
      '--ranks',
      '3',
      '--out',
      join(dir, 'example.run.json'),
    );
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.status).toBe(0);
    for (const line of [
      '[Rank 2] all_reduce sum: [111, 222, 333] ✓',
      '[Rank 1] all_reduce (int32) max: [5, 7, 9] ✓',
      '[Rank 2] reduce to rank 2 prod (root 2): [-6, 16] ✓',
      '[Rank 0] broadcast from rank 1 (root 1): [42, 43] ✓',
      '[Rank 1] scatter a scatter_list (root 0): [3, 4] ✓',
      '[Rank 2] scatter a scatter_list (root 0): [5, 6] ✓',
      '[Rank 0] gather to rank 0 (root 0): [[1, 1], [2, 4], [3, 9]] ✓',
      '[Rank 1] all_gather: [[-1, 1], [9007199254740991, 0], [7, 7]] ✓',
      '[Rank 1] reduce_scatter sum: [222] ✓',
      '[Rank 1] all_to_all (a transpose): [[2, 3], [12, 13], [22, 23]] ✓',
      '[Rank 2] send 0→2: [0.5, -2, 1000] ✓',
      'PASSED: 10/10 checked steps correct on 3 ranks (cpu)',
    ])
      expect(r.stdout).toContain(line);
  });

  it('fails a run whose output is not what the values give, showing the value each element should hold', () => {
    // Every rank but 0 reads where the in-place form would put its chunk, which scatter never writes.
    const file = scenario('wrong-read', [
      {
        op: 'scatter',
        count: 2,
        read: 'rank-slice',
        data: {
          kind: 'values',
          chunks: [
            [10, 11],
            [20, 21],
            [30, 31],
          ],
        },
      },
    ]);
    const r = clab('run', file, '--backend', 'cpu', '--out', join(dir, 'wrong.run.json'));
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('[Rank 0] scatter (root 0): [10, 11] ✓');
    expect(r.stdout).toContain('2 of 2 wrong: [0] expected 20 got nan; [1] expected 21 got nan ✗');
    expect(r.stdout).toContain('2 of 2 wrong: [0] expected 30 got nan; [1] expected 31 got nan ✗');
    expect(r.stdout).toContain('FAILED: 0/1 checked steps correct on 3 ranks (cpu)');
  });

  it('refuses values that do not fit, naming the file, the JSON path and what was expected', () => {
    const file = scenario('bad', [
      {
        op: 'scatter',
        count: 2,
        dtype: 'uint8',
        data: {
          kind: 'values',
          chunks: [
            [1, 2],
            [3, 4],
            [5, 256],
          ],
        },
      },
      {
        op: 'all_gather',
        count: 2,
        data: {
          kind: 'values',
          perRank: [
            [1, 2],
            [3, 4],
          ],
        },
      },
    ]);
    const r = clab('validate', file);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`${file}:`);
    expect(r.stderr).toMatch(/: error: steps\[0\]\.data\.chunks\[2\]\[1\]: 256 does not fit uint8: expected an integer in 0…255/);
    expect(r.stderr).toMatch(/: error: steps\[1\]\.data\.perRank: expected one list per rank: the world has 3 ranks, perRank has 2/);
  });
});
