// `clab run --step` as a learner uses it: the built bundle, real rank processes, lines on stdin.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../setup/temp-dirs';

const dir = tempDir('step');
const scenario = join(dir, 'two-steps.scenario.json');
writeFileSync(
  scenario,
  JSON.stringify({
    version: 1,
    name: 'two steps',
    world: { ranks: 2 },
    backend: 'cpu',
    defaults: { warmup: 0, iters: 1 },
    steps: [
      { op: 'broadcast', count: 3, root: 1, data: { kind: 'arange_rank', start: 1 } },
      { op: 'all_reduce', count: 3, data: { kind: 'arange_rank', start: 1 } },
    ],
  }),
);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function startStepRun(out: string) {
  const child = spawn(process.execPath, ['bin/clab.cjs', 'run', scenario, '--step', '--out', out], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.resume();
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  /** Resolves once stdout holds `text`. */
  const waitFor = async (text: string) => {
    for (let i = 0; i < 300 && !stdout.includes(text); i++) await new Promise((r) => setTimeout(r, 50));
    expect(stdout).toContain(text);
  };
  return { child, exited, waitFor, stdout: () => stdout };
}

describe('clab run --step', () => {
  it("prints each step with every rank's input and runs it only when a line arrives", async () => {
    const run = startStepRun(join(dir, 'a.run.json'));
    await run.waitFor('⏸ step 1 of 2: broadcast (root 1, 3 × float32) · rank 0 [1, 2, 3] · rank 1 [2, 3, 4]');
    await new Promise((r) => setTimeout(r, 500));
    expect(run.stdout()).not.toContain('[Rank 0] broadcast');
    run.child.stdin.write('\n');
    await run.waitFor('⏸ step 2 of 2: all_reduce (sum, 3 × float32)');
    expect(run.stdout()).toContain('[Rank 0] broadcast (root 1): [2, 3, 4] ✓');
    expect(run.stdout()).not.toContain('[Rank 0] all_reduce');
    run.child.stdin.write('\n');
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toContain('[Rank 1] all_reduce sum: [3, 5, 7] ✓');
  });

  it('runs the remaining steps without pausing once stdin ends', async () => {
    const run = startStepRun(join(dir, 'b.run.json'));
    run.child.stdin.end();
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toContain('[lab] stdin ended: the remaining steps run without pausing');
    expect(run.stdout()).toContain('[Rank 1] all_reduce sum: [3, 5, 7] ✓');
  });

  it('SIGINT while paused stops the run, saves the record as aborted and leaves no rank process', async () => {
    const out = join(dir, 'c.run.json');
    const run = startStepRun(out);
    await run.waitFor('⏸ step 1 of 2');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(1);
    const record = JSON.parse(readFileSync(out, 'utf8'));
    expect(record.status).toBe('aborted');
    // Stdin did not end: the run was stopped, and says only that.
    expect(run.stdout()).not.toContain('stdin ended');
    const pids = (record.logs as { text: string }[]).flatMap((l) => /pid (\d+)/.exec(l.text)?.[1] ?? []).map(Number);
    expect(pids).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 200));
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });
});
