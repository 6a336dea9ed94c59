// The α-β model in `clab run` and `clab replay` as a user sees it: the built bundle, cpu ranks.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SWEEP_HEADER } from '../../../src/shared/export/format.js';
import { runRecordSchema } from '../../../src/shared/run/record/record.js';
import { tempDir } from '../../setup/temp-dirs';

const clab = (...args: string[]) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 60_000 });

describe('the α-β model in the CLI', () => {
  it('follows the live rows on a pipe, and sits in the replayed table, with β the host copy rate the record kept', () => {
    const dir = tempDir('model');
    const scenario = join(dir, 'sweep.scenario.json');
    const record = join(dir, 'sweep.run.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        version: 1,
        name: 'sweep',
        world: { ranks: 2 },
        defaults: { warmup: 1, iters: 3 },
        steps: [{ op: 'sweep', collective: 'all_reduce', minBytes: 8, maxBytes: '64KiB', factor: 8 }],
      }),
    );
    const run = clab('run', scenario, '--backend', 'cpu', '--out', record);
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    // nccl-tests' rows as they came, then the model's own table: 8 B, 64 B, 512 B, 4 KiB, 32 KiB.
    const modelAt = lines.indexOf('#        size    model  %peak');
    expect(modelAt).toBeGreaterThan(lines.indexOf(SWEEP_HEADER[0]));
    expect(lines.slice(modelAt + 2, modelAt + 7).map((l) => Number(l.trim().split(/\s+/)[0]))).toEqual([8, 64, 512, 4096, 32768]);
    const saved = runRecordSchema.parse(JSON.parse(readFileSync(record, 'utf8')));
    expect(saved.environment.hostCopyGBps).toBeGreaterThan(0);
    const beta = `β = ${saved.environment.hostCopyGBps!.toFixed(2)} GB/s`;
    expect(lines.slice(modelAt).join(' ')).toContain(beta);

    const replay = clab('replay', record);
    expect(replay.status).toBe(0);
    expect(replay.stdout).toContain(`${SWEEP_HEADER[0]}    model  %peak`);
    expect(replay.stdout).toMatch(/^# model is the busbw predicted for a ring all_reduce on 2 ranks: 2 hops of α = /m);
    expect(replay.stdout.replace(/\n# {3}/g, ' ')).toContain(beta);
  });
});

describe('the model figure of docs/MEASUREMENT.md', () => {
  const LINE =
    /^ranks (\d+), run (\d+): at 64 MiB busbw [\d.]+ GB\/s = \d+ % of β = [\d.]+ GB\/s \(host copy\); the ring model predicts 100 %$/;

  it('comes from a command anyone can rerun, which prints it in the words the figure quotes', () => {
    const row = readFileSync('docs/MEASUREMENT.md', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('| `bash bench/cpu/model.sh`') && /\| \d{4}-\d{2}-\d{2} \|/.test(l)); // a measured row, not the benches' list
    expect(row, 'a Figures row for bench/cpu/model.sh').toBeDefined();
    const [, , device, date, figure] = row!.split('|').map((c) => c.trim());
    expect(device).toMatch(/CPU cores/);
    expect(date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(figure).toMatch(/% of β/);

    const out = spawnSync('bash', ['bench/cpu/model.sh'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, RANKS: '2', RUNS: '1', BENCH_OUT: tempDir('model-bench') },
    });
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^# all_reduce sweep on cpu ranks, \d{4}-\d{2}-\d{2}, \d+ cores/);
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toMatch(LINE);
  });
});
