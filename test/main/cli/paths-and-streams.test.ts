// Paths that are not files, streams that never end and text that would act on the terminal, as a
// user meets them through the built `clab`: refused before anything runs, read up to a bound,
// shown inert. Runs on the cpu backend. Every `run` and the endless files start the real process;
// export, compare and replay of a saved record also run the same bundle here (clab-here.ts).
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clabHere } from './clab-here';

const clab = (args: string[], timeout = 60_000) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout });
const dir = mkdtempSync(join(tmpdir(), 'clab-paths-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ESC = '\u001b';
const small = (extra: object = {}) =>
  JSON.stringify({ version: 1, name: 'small', world: { ranks: 2 }, backend: 'cpu', steps: [{ op: 'all_reduce', count: 4 }], ...extra });
const scenario = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

describe('record and export paths that are not regular files', () => {
  const refusedBeforeTheRun = (out: string, what: RegExp) => {
    const r = clab(['run', scenario('small.scenario.json', small()), '--out', out]);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(what);
    // Nothing ran: no rank's result line, no verdict.
    expect(r.stdout).toBe('');
  };

  it('refuses a device node, naming what stands there, and leaves it a device', () => {
    const node = join(dir, 'fakenull');
    execFileSync('mknod', [node, 'c', '1', '3']);
    refusedBeforeTheRun(node, /fakenull is a character device; expected a file to write/);
    expect(statSync(node).isCharacterDevice()).toBe(true);
  });

  it('refuses a symlink, a FIFO and a directory, and leaves each as it was', () => {
    const target = join(dir, 'target.txt');
    writeFileSync(target, 'keep me');
    const link = join(dir, 'link.run.json');
    symlinkSync(target, link);
    refusedBeforeTheRun(link, /link\.run\.json is a symbolic link/);
    expect(readlinkSync(link)).toBe(target);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
    const fifo = join(dir, 'fifo.run.json');
    execFileSync('mkfifo', [fifo]);
    refusedBeforeTheRun(fifo, /fifo\.run\.json is a FIFO/);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    refusedBeforeTheRun(dir, /is a directory/);
  });

  it('refuses an empty path and places that take no files (/proc, /sys) before the run', () => {
    refusedBeforeTheRun('', /an empty path/);
    refusedBeforeTheRun('/proc/clab-test.run.json', /cannot write \/proc\/clab-test\.run\.json/);
    refusedBeforeTheRun('/sys/clab-test.run.json', /cannot write \/sys\/clab-test\.run\.json/);
  });

  it('export -o refuses a symlink and a device before writing, and writes a new file', async () => {
    const record = join(dir, 'for-export.run.json');
    expect(clab(['run', scenario('small.scenario.json', small()), '--out', record]).status).toBe(0);
    const target = join(dir, 'export-target.txt');
    writeFileSync(target, 'keep me');
    const link = join(dir, 'export-link.csv');
    symlinkSync(target, link);
    const r = await clabHere('export', record, '--format', 'csv', '-o', link);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/export-link\.csv is a symbolic link/);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
    const node = join(dir, 'export-null');
    execFileSync('mknod', [node, 'c', '1', '3']);
    expect((await clabHere('export', record, '--format', 'csv', '-o', node)).stderr).toMatch(/export-null is a character device/);
    expect(statSync(node).isCharacterDevice()).toBe(true);
    const fresh = join(dir, 'fresh.csv');
    expect((await clabHere('export', record, '--format', 'csv', '-o', fresh)).status).toBe(0);
    expect(readFileSync(fresh, 'utf8')).toMatch(/^step,/);
  });
});

describe('files that never end', () => {
  it('validate reads at most the size limit of /dev/zero and a pipe, then refuses', () => {
    const node = JSON.stringify(process.execPath);
    for (const command of [`${node} bin/clab.cjs validate /dev/zero`, `${node} bin/clab.cjs validate <(yes)`]) {
      const r = spawnSync('bash', ['-c', command], { encoding: 'utf8', timeout: 10_000 });
      expect(r.signal, `${command} ran past 10 s`).toBeNull();
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/more than 2097152 bytes were read/);
    }
  });
});

describe('a record that cannot be saved after the run', () => {
  it('still gets its verdict printed, and says where the record could not go', async () => {
    const file = scenario(
      'sweep.scenario.json',
      JSON.stringify({
        version: 1,
        name: 'sweep',
        world: { ranks: 2 },
        backend: 'cpu',
        steps: [{ op: 'sweep', collective: 'all_reduce', minBytes: 64, maxBytes: 32 * 1024 * 1024, factor: 2 }],
      }),
    );
    const out = join(dir, 'gone', 'sweep.run.json');
    const child = spawn(process.execPath, ['bin/clab.cjs', 'run', file, '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let blocked = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      // Once the run has begun, a directory takes the record's place: the final write must fail.
      if (!blocked && /^\s+\d+\s+\d+\s+float32/m.test(stdout)) {
        blocked = true;
        // The run's checkpoint may put the file back between the two calls: try again, a bounded few times.
        for (let attempt = 0; attempt < 50; attempt++) {
          rmSync(out, { force: true });
          try {
            mkdirSync(out, { recursive: true });
            break;
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
          }
        }
        writeFileSync(join(out, 'occupied'), '');
      }
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(blocked).toBe(true);
    expect(stdout).toMatch(/PASSED: .* on 2 ranks \(cpu\)/);
    expect(stderr).toContain(`the run record could not be written to ${out}`);
    expect(code).toBe(1);
  }, 90_000);
});

describe('text from files printed inert', () => {
  const evil = `evil${ESC}[2J${ESC}]0;title\u0007\u009b31m\u202e`;

  it('validate shows a scenario name and a key path with escape sequences as visible escapes', async () => {
    const named = await clabHere('validate', scenario('named.scenario.json', small({ name: evil })));
    expect(named.status).toBe(0);
    expect(named.stdout).toContain('"evil\\e[2J\\e]0;title\\x07\\x9b31m\\u202e"');
    const keyed = await clabHere('validate', scenario('keyed.scenario.json', small({ [evil]: 1 })));
    expect(keyed.status).toBe(2);
    expect(keyed.stderr).toContain('evil\\e[2J');
    for (const r of [named, keyed]) expect(r.stdout + r.stderr).not.toMatch(/[\u001b\u0007\u009b\u202e]/);
  });

  it('run, compare, export csv and error messages print no control character from a file', async () => {
    const file = scenario(
      'lesson.scenario.json',
      small({
        lesson: { see: `see ${evil}`, why: 'why', fix: 'fix' },
        steps: [{ op: 'all_reduce', count: 4, label: `sum ${evil}` }],
      }),
    );
    const record = join(dir, 'lesson.run.json');
    const run = clab(['run', file, '--out', record]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('see evil\\e[2J');
    const compare = await clabHere('compare', record, record);
    expect(compare.stdout).toContain('sum evil\\e[2J');
    const csv = await clabHere('export', record, '--format', 'csv');
    expect(csv.stdout).toContain('sum evil\\e[2J');
    const json = await clabHere('replay', record, '--json');
    expect(JSON.parse(json.stdout).steps[0].label).toBe(`sum ${evil}`);
    const missing = await clabHere('replay', join(dir, `no${ESC}[2Jsuch.run.json`));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('no\\e[2Jsuch.run.json');
    for (const r of [run, compare, csv, json, missing]) expect(r.stdout + r.stderr).not.toMatch(/[\u001b\u0007\u009b\u202e]/);
    // A file keeps the record's text as it is.
    const exported = join(dir, 'lesson.csv');
    expect((await clabHere('export', record, '--format', 'csv', '-o', exported)).status).toBe(0);
    expect(readFileSync(exported, 'utf8')).toContain(`sum ${evil}`);
  });
});

describe('replay of a record whose world is out of bounds', () => {
  it('refuses a world of -3, 0 and 1e9 with the path at fault', () => {
    const record = join(dir, 'world.run.json');
    expect(clab(['run', scenario('small.scenario.json', small()), '--out', record]).status).toBe(0);
    const text = JSON.parse(readFileSync(record, 'utf8'));
    for (const world of [-3, 0, 1e9]) {
      const bad = join(dir, `world-${world}.run.json`);
      writeFileSync(bad, JSON.stringify({ ...text, world, plan: { ...text.plan, world } }));
      const r = clab(['replay', bad], 20_000);
      expect(r.signal).toBeNull();
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/not a valid run record: (plan\.)?world/);
    }
    expect(existsSync(record)).toBe(true);
  });
});
