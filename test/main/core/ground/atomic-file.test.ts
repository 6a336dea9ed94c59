// Whole-file writes: what a process killed during a rewrite leaves is cleaned up at the next write
// into that folder, as the cpu backend's segments of dead processes are.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { writeFileAtomic } from '../../../../src/main/core/ground/atomic-file';

const dir = mkdtempSync(join(tmpdir(), 'clab-atomic-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has ended (a child that ran `true`). */
const deadPid = (): number => spawnSync('true').pid!;

describe('writeFileAtomic', () => {
  it('removes the temp files of processes that are gone, and keeps the others', () => {
    const dead = deadPid();
    const stale = [`.${dead}.1732500000000.tmp`, `.${dead}.1732500000001.ab12.tmp`];
    for (const name of stale) writeFileSync(join(dir, name), 'x'.repeat(1024));
    const living = `.${process.ppid}.1732500000000.tmp`; // the test runner's parent is alive
    writeFileSync(join(dir, living), 'x');
    writeFileSync(join(dir, '.notes.tmp'), 'not ours');
    writeFileAtomic(join(dir, 'record.run.json'), '{}');
    expect(stale.filter((n) => existsSync(join(dir, n)))).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual([living, '.notes.tmp', 'record.run.json'].sort());
  });

  it('looks again at most once a minute, so a long-lived lab cleans up after processes killed later', () => {
    const target = join(dir, 'later.run.json');
    writeFileAtomic(target, '{}');
    const stale = join(dir, `.${deadPid()}.1732500000002.tmp`);
    writeFileSync(stale, 'x');
    writeFileAtomic(target, '{}');
    expect(existsSync(stale)).toBe(true);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
    try {
      writeFileAtomic(target, '{}');
    } finally {
      vi.useRealTimers();
    }
    expect(existsSync(stale)).toBe(false);
  });
});
