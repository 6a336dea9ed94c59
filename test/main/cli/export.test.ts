// `clab export` and `clab compare` as a user runs them: the built bundle, real rank processes
// on the cpu backend making the records they read.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runRecordSchema, type RunRecord } from '../../../src/shared/run/record/record.js';
import { csvObjects } from '../../shared/export/csv.js';
import { traceRuleViolations } from '../../shared/export/trace-rules.js';
import { tempDir } from '../../setup/temp-dirs';

const clab = (...args: string[]) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 60_000 });
const dir = tempDir('export');
const readRun = (file: string): RunRecord => runRecordSchema.parse(JSON.parse(readFileSync(file, 'utf8')));

const scenario = join(dir, 'small.scenario.json');
writeFileSync(
  scenario,
  JSON.stringify({
    version: 1,
    name: 'small',
    world: { ranks: 2 },
    steps: [
      { op: 'all_reduce', count: 1024, iters: 5 },
      { op: 'send', label: 'send 0→1', from: 0, to: 1, count: 256, iters: 3 },
      {
        op: 'group',
        label: 'exchange',
        steps: [
          { op: 'send', from: 0, to: 1, count: 2 },
          { op: 'send', from: 1, to: 0, count: 2 },
        ],
      },
      { op: 'barrier' },
    ],
  }),
);

const runScenario = (out: string) => {
  const r = clab('run', scenario, '--backend', 'cpu', '--out', out);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return readRun(out);
};

describe('clab export', () => {
  const file = join(dir, 'small.run.json');
  let record: RunRecord;
  beforeAll(() => {
    record = runScenario(file);
  });

  it("writes the results table as CSV with the record's numbers, one row per result step", () => {
    const r = clab('export', file, '--format', 'csv');
    expect(r.status).toBe(0);
    const rows = csvObjects(r.stdout);
    expect(rows.map((x) => x.label)).toEqual(record.steps.map((s) => s.label));
    expect(rows[0]).toMatchObject({ op: 'all_reduce', 'size (B)': '4096', 'count (elements)': '1024', type: 'float32', verdict: 'pass' });
    // Rounded to 0.1 MB/s (four decimals of GB/s).
    expect(Number(rows[0]['busbw (GB/s)'])).toBe(Number(record.steps[0].busbw!.toFixed(4)));
    // A group of sends reads as send/recv, counted as nccl-tests' sendrecv counts an exchange: what each rank sends.
    expect(rows[2]).toMatchObject({ op: 'send/recv', 'size (B)': '8', 'count (elements)': '2' });
  });

  it('writes the same table as JSON', () => {
    const r = clab('export', file, '--format', 'json');
    expect(r.status).toBe(0);
    const rows = JSON.parse(r.stdout);
    expect(rows.map((x: { step: number }) => x.step)).toEqual(record.steps.map((s) => s.index));
    expect(rows[1]).toMatchObject({ op: 'send/recv', size: 1024, count: 256, wrong: 0, verdict: 'pass', algbw: record.steps[1].algbw });
  });

  it('writes a Chrome trace to a file that keeps the Trace Event Format rules', () => {
    const out = join(dir, 'small.trace.json');
    const r = clab('export', file, '--format', 'chrome-trace', '-o', out);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    const trace = JSON.parse(readFileSync(out, 'utf8'));
    expect(traceRuleViolations(trace)).toEqual([]);
    const slices = trace.traceEvents.filter((e: { ph: string }) => e.ph === 'X');
    expect(slices).toHaveLength(record.events.length);
    // Three timed sends, one exchange each way.
    expect(trace.traceEvents.filter((e: { ph: string }) => e.ph === 's').length).toBeGreaterThanOrEqual(5);
    expect(trace.otherData).toMatchObject({ runId: record.id, backend: 'cpu' });
  });

  it('refuses a file that is not a run record, naming it, with exit 2', () => {
    const bad = join(dir, 'bad.run.json');
    writeFileSync(bad, '{"format":"clab.run"}');
    const r = clab('export', bad, '--format', 'csv');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${bad}: not a valid run record`);
    expect(r.stdout).toBe('');
    const missing = clab('export', join(dir, 'missing.run.json'), '--format', 'csv');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('missing.run.json: cannot read the run record');
  });

  it('refuses an unknown format with exit 2', () => {
    const r = clab('export', file, '--format', 'xml');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('Allowed choices are chrome-trace, csv, json');
  });
});

describe('clab compare', () => {
  const a = join(dir, 'a.run.json');
  const b = join(dir, 'b.run.json');
  beforeAll(() => {
    runScenario(a);
    runScenario(b);
  });

  it('prints both runs and every step they share', () => {
    const r = clab('compare', a, b);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^# A: \S+ .*small\.scenario\.json .* passed, 2 ranks, cpu$/m);
    expect(r.stdout).toMatch(/^[* ] all_reduce \(all_reduce, 4096 B\)\s+[\d.]+\s+[\d.]+\s+[+-][\d.]+%/m);
    expect(r.stdout).toContain('# same environment');
    expect(r.stdout).not.toContain('only in');
  });

  it('prints the comparison as JSON with --json', () => {
    const r = clab('compare', a, b, '--json');
    expect(r.status).toBe(0);
    const c = JSON.parse(r.stdout);
    expect(c.steps.map((s: { label: string }) => s.label)).toEqual(['all_reduce', 'send 0→1', 'exchange', 'barrier']);
    expect(c.a.id).toBe(readRun(a).id);
    expect(c.b.id).toBe(readRun(b).id);
  });

  it('refuses a file that is not a run record with exit 2', () => {
    const r = clab('compare', a, scenario);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${scenario}: not a valid run record`);
  });
});

describe('a stopped run', () => {
  it('marks the step in flight "stopped", not an error, in the record, the status line and the export', async () => {
    const file = join(dir, 'long.scenario.json');
    const out = join(dir, 'long.run.json');
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        name: 'long',
        world: { ranks: 2 },
        steps: [
          { op: 'all_reduce', count: 3 },
          { op: 'all_reduce', label: 'long', count: 4194304, iters: 2000 },
        ],
      }),
    );
    const child = spawn(process.execPath, ['bin/clab.cjs', 'run', file, '--backend', 'cpu', '--out', out]);
    let stdout = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (d) => {
        stdout += d;
        // The first step has printed its results: the ranks are in the long one.
        if (stdout.includes('[Rank 1] all_reduce')) resolve();
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    expect(stdout).toMatch(/ABORTED: 1\/1 checked steps correct on 2 ranks \(cpu\), 1 step stopped in flight; interrupted \(SIGINT\)/);
    const record = readRun(out);
    expect(record.status).toBe('aborted');
    expect(record.error?.code).toBe('CLAB_STOPPED');
    expect(record.steps.map((s) => s.verdict)).toEqual(['pass', 'stopped']);
    const rows = csvObjects(clab('export', out, '--format', 'csv').stdout);
    expect(rows[1]).toMatchObject({ label: 'long', verdict: 'stopped', '#wrong': '' });
  });
});
