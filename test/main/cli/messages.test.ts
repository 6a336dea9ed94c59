// What `clab validate`, `run` and `replay` print for mistakes and hostile text: words, positions,
// warnings that refuse nothing, each problem once, and no control character from a record reaching
// the terminal. The `run` cases and one of validate start the real process; the rest run the same
// bundle in this process (clab-here.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clabHere } from './clab-here';

const clab = (...args: string[]) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 60_000 });
const dir = mkdtempSync(join(tmpdir(), 'clab-messages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

/** C0 controls but tab and newline, DEL, C1. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('clab validate', () => {
  it('says what world.ranks must be and suggests the operation meant', () => {
    const file = write(
      'words.scenario.json',
      '{\n  "version": 1, "name": "w",\n  "world": { "ranks": "two" },\n  "steps": [{ "op": "allgather", "count": 4 }]\n}\n',
    );
    const r = clab('validate', file);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${file}:3:23: error: world.ranks: expected a whole number ≥ 1, got "two"\n`);
    expect(r.stderr).toMatch(
      new RegExp(`${file}:4:21: error: steps\\[0\\]\\.op: expected one of broadcast, .*, got "allgather": did you mean all_gather\\?\n`),
    );
    expect(r.stderr).toContain('2 problems found');
  });

  it("says the world's problems of the valid steps beside the schema's errors, in the file's order", async () => {
    const file = write(
      'both.scenario.json',
      '{ "version": 1, "name": "b", "world": { "ranks": 2 },\n  "steps": [\n' +
        '    { "op": "broadcast", "count": 4, "root": 5 },\n' +
        '    { "op": "all_reduce", "count": "four" },\n' +
        '    { "op": "send", "from": 1, "to": 1, "count": 2 }\n  ] }\n',
    );
    const r = await clabHere('validate', file);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      [
        `${file}:3:46: error: steps[0].root: rank 5 does not exist in a world of 2 ranks (expected 0…1)`,
        `${file}:4:36: error: steps[1].count: expected a whole number ≥ 0, got "four"`,
        `${file}:5:38: error: steps[2].to: a rank cannot send to itself (from and to are both 1)`,
        '3 problems found',
        '',
      ].join('\n'),
    );
  });

  it('says a problem of the world once, and counts it once', async () => {
    const file = write(
      'root.scenario.json',
      '{ "version": 1, "name": "r", "world": { "ranks": 2 },\n  "steps": [{ "op": "broadcast", "count": 4, "root": 5 }] }\n',
    );
    const r = await clabHere('validate', file);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `${file}:2:54: error: steps[0].root: rank 5 does not exist in a world of 2 ranks (expected 0…1)\n1 problem found\n`,
    );
  });

  // Lists and objects inside one another far past what the parser's recursion holds.
  const DEPTH = 50_000;
  it('refuses lists nested 50 000 deep with the nesting problem at its JSON path, not a stack overflow', async () => {
    const file = write('deep-lists.scenario.json', `{"steps": ${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`);
    const r = await clabHere('validate', file);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `${file}:1:74: error: steps${'[0]'.repeat(63)}: objects and lists are nested more than 64 deep here; a scenario needs about 10 levels\n` +
        '1 problem found\n',
    );
  });

  it('refuses objects nested 50 000 deep with the nesting problem at its JSON path, not a stack overflow', async () => {
    const file = write('deep-objects.scenario.json', `${'{"a": '.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`);
    const r = await clabHere('validate', file);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `${file}:1:385: error: ${Array(64).fill('a').join('.')}: objects and lists are nested more than 64 deep here; a scenario needs about 10 levels\n` +
        '1 problem found\n',
    );
  });

  it('says where a truncated file ends, in words', async () => {
    const file = write('cut.scenario.json', '{\n  "version": 1,\n  "name": "cu');
    const r = await clabHere('validate', file);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${file}:3:11: error: invalid JSON: a string is not closed`);
    expect(r.stderr).toContain(`${file}:3:14: error: invalid JSON: the file ends too early: expected '}' to close an object`);
    expect(r.stderr).not.toMatch(/UnexpectedEndOfString|CloseBraceExpected/);
  });

  it('says a file is missing without a 0:0 position', async () => {
    const file = join(dir, 'absent.scenario.json');
    const r = await clabHere('validate', file);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`${file}:1:1: error: cannot read ${file}: no such file\n1 problem found\n`);
  });

  it('warns at the duplicate key that counts, and still validates', async () => {
    const file = write(
      'twice.scenario.json',
      '{"version": 1, "name": "t", "world": {"ranks": 2},\n "steps": [{"op": "all_reduce", "count": 4, "count": 8}]}\n',
    );
    const r = await clabHere('validate', file);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      `${file}:2:45: warning: steps[0].count: "count" is given twice in this object: this value is used, the one at line 2, column 33 is ignored\n`,
    );
    expect(r.stdout).toBe(`${file}: OK — "t", 1 steps on 2 ranks (1 warning)\n`);
  });

  it('accepts a file that starts with a byte order mark', async () => {
    const file = write('bom.scenario.json', '\uFEFF{"version": 1, "name": "bom", "world": {"ranks": 2}, "steps": [{"op": "barrier"}]}');
    const r = await clabHere('validate', file);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('OK — "bom"');
  });
});

describe('clab run', () => {
  it('says a warning and a problem of the world once each before refusing to run', () => {
    const file = write(
      'warned-root.scenario.json',
      '{ "version": 1, "name": "w", "name": "w", "world": { "ranks": 2 },\n  "steps": [{ "op": "broadcast", "count": 4, "root": 5 }] }\n',
    );
    const r = clab('run', file, '--backend', 'cpu');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      [
        `${file}:1:30: warning: name: "name" is given twice in this object: this value is used, the one at line 1, column 17 is ignored`,
        `${file}:2:54: error: steps[0].root: rank 5 does not exist in a world of 2 ranks (expected 0…1)`,
        '1 problem found',
        '',
      ].join('\n'),
    );
  });
});

describe('clab replay', () => {
  it('shows a record saved as passed over steps that all failed as failed, and says the record disagreed', async () => {
    const record = JSON.parse(readFileSync('docs/records/all-in-one-h200x2.run.json', 'utf8'));
    expect(record.status).toBe('passed');
    for (const step of record.steps) step.verdict = 'fail';
    const file = write('edited.run.json', JSON.stringify(record));
    const notice = `clab: ${file}: the record's status is "passed" but 27 of its 27 steps failed; shown as failed, as its steps say\n`;
    const r = await clabHere('replay', file);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^FAILED: 0\/27 checked steps correct on 2 ranks/m);
    expect(r.stdout).not.toContain('PASSED');
    expect(r.stderr).toBe(notice);
    const compared = await clabHere('compare', file, 'docs/records/all-in-one-h200x2.run.json');
    expect(compared.stdout).toMatch(/^# A: .* — failed, 2 ranks/m);
    expect(compared.stdout).toMatch(/^# B: .* — passed, 2 ranks/m);
    expect(compared.stderr).toBe(notice);
  });

  it('prints labels, outputs and names from a record with their control characters made visible', () => {
    const hostile = 'evil\u001b[2J\u001b]0;owned\u0007\rX\u009b\u202e';
    const scenario = write(
      'hostile.scenario.json',
      JSON.stringify({
        version: 1,
        name: `n\u001b[31m`,
        world: { ranks: 2 },
        steps: [{ op: 'all_reduce', count: 3, label: hostile }],
      }),
    );
    const record = join(dir, 'hostile.run.json');
    expect(clab('run', scenario, '--out', record).status).toBe(0);
    const r = clab('replay', record);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(RAW_CONTROL);
    expect(r.stdout).not.toContain('\u202e');
    expect(r.stdout).toContain('[Rank 1] evil\\e[2J\\e]0;owned\\x07\\rX\\x9b\\u202e sum: [3, 5, 7] ✓');
  });
});
