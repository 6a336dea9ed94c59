// `clab export --format nccl-tests-json` as a user runs it: a real sweep on cpu ranks, its export
// checked against nccl-tests' file layout, and read by NVIDIA's own analyzer
// (tools/analyze_perf_json.py) where a copy of nccl-tests' source is here: set
// CLAB_NCCL_TESTS_SRC to its folder (e.g. a clone of github.com/NVIDIA/nccl-tests).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ncclTestsFileSchema } from '../../shared/export/nccl-tests-schema';
import { tempDir } from '../../setup/temp-dirs';

const clab = (...args: string[]) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 60_000 });
const dir = tempDir('nccl-tests-export');

const source = process.env.CLAB_NCCL_TESTS_SRC;
const analyzer = source ? join(source, 'tools', 'analyze_perf_json.py') : null;
const python = spawnSync('python3', ['--version']).status === 0;
const noAnalyzer = !analyzer
  ? 'CLAB_NCCL_TESTS_SRC is not set: point it at a copy of nccl-tests (git clone https://github.com/NVIDIA/nccl-tests) to run its analyzer on the export'
  : !existsSync(analyzer)
    ? `${analyzer} is missing: CLAB_NCCL_TESTS_SRC must be a copy of nccl-tests 2.19 or later (tools/analyze_perf_json.py)`
    : !python
      ? 'python3 is missing: the analyzer is a Python script'
      : null;
if (noAnalyzer) console.warn(`skipping the nccl-tests analyzer test: ${noAnalyzer}`);

describe('clab export --format nccl-tests-json', () => {
  const record = join(dir, 'sweep.run.json');
  const file = join(dir, 'sweep.json');
  beforeAll(() => {
    const scenario = join(dir, 'sweep.scenario.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        version: 1,
        name: 'sweep',
        world: { ranks: 3 },
        steps: [
          { op: 'sweep', collective: 'all_reduce', minBytes: 64, maxBytes: 4096, factor: 4, iters: 4 },
          { op: 'sweep', collective: 'all_reduce', minBytes: 64, maxBytes: 4096, factor: 4, iters: 4, inPlace: false },
        ],
      }),
    );
    const run = clab('run', scenario, '--backend', 'cpu', '--out', record);
    expect(run.status).toBe(0);
    const r = clab('export', record, '--format', 'nccl-tests-json', '-o', file);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it("writes nccl-tests' -J file: every size with both halves and every rank's iterations", () => {
    const exported = ncclTestsFileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    expect(exported.results.map((r) => r.size)).toEqual([64, 256, 1024, 4096]);
    for (const r of exported.results) {
      expect(r.out_of_place).not.toBeNull();
      expect(r.in_place).not.toBeNull();
      expect(r.out_of_place_per_iter?.per_process_max_times_us).toHaveLength(3);
    }
  });

  it("is read by NVIDIA's analyzer unchanged, each size's times the max over its process rows", { skip: noAnalyzer !== null }, () => {
    for (const placement of [[], ['--in-place']]) {
      const a = spawnSync('python3', [analyzer!, file, '--all', ...placement], { encoding: 'utf8', timeout: 60_000 });
      expect(a.stderr).toBe('');
      expect(a.status).toBe(0);
      expect(a.stdout).toMatch(/Version: +3/);
      expect(a.stdout).toMatch(/Process rows: 3/);
      expect(a.stdout).toMatch(/Consistency \(times_us == max over process rows, (OOP|IP)\): PASS/);
      for (const size of [64, 256, 1024, 4096]) expect(a.stdout).toMatch(new RegExp(`^ +${size} +\\d`, 'm'));
    }
  });

  it('names the record when it holds no sweep', () => {
    const scenario = join(dir, 'plain.scenario.json');
    writeFileSync(scenario, JSON.stringify({ version: 1, name: 'plain', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 8 }] }));
    const plain = join(dir, 'plain.run.json');
    expect(clab('run', scenario, '--backend', 'cpu', '--out', plain).status).toBe(0);
    const r = clab('export', plain, '--format', 'nccl-tests-json');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`clab: ${plain}: the run has no sweep: nccl-tests JSON holds a sweep over sizes\n`);
  });
});
