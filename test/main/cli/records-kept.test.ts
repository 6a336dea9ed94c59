// What a run measured is kept whatever happens to `clab`: a reader that closes the pipe early, a
// record path that cannot be written (refused before anything runs), and kill -9 mid-run (the
// record at its final path was kept current as steps ended).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRecordSchema } from '../../../src/shared/run/record/record';
import { tempDir } from '../../setup/temp-dirs';

const dir = tempDir('kept');
const clab = (...args: string[]) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 60_000 });
/** Live processes whose parent is `parent`. */
const childrenOf = (parent: number): number[] =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false;
      }
    });
const readRecord = (file: string) => runRecordSchema.parse(JSON.parse(readFileSync(file, 'utf8')));

/** Runs `clab ARGS | head -1` in a shell: stdout closes after the first line. */
function throughHead(args: string): { status: number; stderr: string; firstLine: string } {
  const r = spawnSync('bash', ['-c', `set -o pipefail; ${JSON.stringify(process.execPath)} bin/clab.cjs ${args} | head -1`], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status!, stderr: r.stderr, firstLine: r.stdout };
}

describe('records are kept', () => {
  it('when the reader of `clab run` goes away after one line, the run goes on and saves its record', () => {
    const out = join(dir, 'piped.run.json');
    const r = throughHead(`run scenarios/all-in-one.scenario.json --ranks 2 --backend cpu --out ${out}`);
    expect(r.stderr).not.toMatch(/EPIPE|at .*\.cjs/);
    expect(r.firstLine).toContain('[Rank 0] broadcast');
    expect(r.status).toBe(0);
    expect(readRecord(out).status).toBe('passed');
  });

  it('when the reader of `clab replay` goes away after one line', () => {
    const out = join(dir, 'replayed.run.json');
    expect(clab('run', 'scenarios/all-in-one.scenario.json', '--ranks', '2', '--backend', 'cpu', '--out', out).status).toBe(0);
    const r = throughHead(`replay ${out}`);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('refuses an --out that is a directory or cannot be written before running, and leaves no temp file', () => {
    const target = join(dir, 'a-directory');
    mkdirSync(target);
    const r = clab('run', 'scenarios/all-in-one.scenario.json', '--ranks', '2', '--backend', 'cpu', '--out', target);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${target} is a directory; expected a file to write`);
    expect(r.stdout).not.toContain('[Rank'); // nothing ran
    expect(readdirSync(target)).toEqual([]);
    const blocked = join(dir, 'a-file');
    writeFileSync(blocked, '');
    const under = clab('run', 'scenarios/all-in-one.scenario.json', '--out', join(blocked, 'x.run.json'));
    expect(under.status).toBe(2);
    expect(under.stderr).toMatch(/cannot write .*a-file\/x\.run\.json: .*a-file is not a directory/);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('names the signal that stopped it: SIGTERM ends the run as interrupted (SIGTERM), record saved', async () => {
    const out = join(dir, 'terminated.run.json');
    const child = spawn(
      process.execPath,
      ['bin/clab.cjs', 'run', 'scenarios/allreduce-sweep.scenario.json', '--backend', 'cpu', '--out', out],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let printed = '';
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await new Promise<void>((done) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
        if ((printed.match(/^ +\d+ /gm) ?? []).length >= 2) done();
      });
    });
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(1);
    const record = readRecord(out);
    expect(record.status).toBe('aborted');
    expect(record.error?.message).toBe('interrupted (SIGTERM)');
    expect(stderr + printed).not.toContain('SIGINT');
  });

  it('keeps the record current while the run goes: kill -9 leaves the steps done so far, marked incomplete', async () => {
    const out = join(dir, 'killed.run.json');
    // Long enough (some seconds on cpu ranks) that clab is still running when the record on disk
    // shows three steps: the record is rewritten at most once a second as steps end.
    const scenario = join(dir, 'long-sweep.scenario.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        version: 1,
        name: 'long sweep',
        world: { ranks: 2 },
        defaults: { dtype: 'float32', warmup: 2, iters: 100 },
        steps: [{ op: 'sweep', collective: 'all_reduce', redop: 'sum', minBytes: 8, maxBytes: '64MiB', factor: 2 }],
      }),
    );
    const child = spawn(process.execPath, ['bin/clab.cjs', 'run', scenario, '--backend', 'cpu', '--out', out], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const stepsOnDisk = () => {
      try {
        return (JSON.parse(readFileSync(out, 'utf8')) as { steps: unknown[] }).steps.length;
      } catch {
        return 0; // not written yet, or caught between rename and read
      }
    };
    const deadline = Date.now() + 30_000;
    while (stepsOnDisk() < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const rankPids = childrenOf(child.pid!);
    expect(rankPids).toHaveLength(2);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const record = readRecord(out);
    expect(record.status).toBe('incomplete');
    expect(record.finishedAt).toBeNull();
    expect(record.steps.length).toBeGreaterThanOrEqual(3);
    expect(record.steps.length).toBeLessThan(record.plan.steps.length);
    expect(record.steps.every((s) => s.verdict === 'pass')).toBe(true);
    expect(clab('replay', out).stdout).toMatch(/INCOMPLETE: \d+\/\d+ checked steps correct/);
    // Its rank processes follow it (they end when the core's channel goes), and leave no segment name.
    // (An exited rank may stay a zombie where pid 1 does not reap orphans, as in some containers: state Z.)
    const running = (pid: number) => {
      try {
        return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false; // gone
      }
    };
    // Within a second, looked at every 50 ms.
    for (let i = 0; i < 20 && rankPids.some(running); i++) await new Promise((r) => setTimeout(r, 50));
    expect(rankPids.filter(running)).toEqual([]);
    expect(readdirSync('/dev/shm').filter((f) => rankPids.some((pid) => f.startsWith(`clab-${pid}-`)))).toEqual([]);
  });
});
