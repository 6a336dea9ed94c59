// Reading files the lab is pointed at: never more than a bound, counted as read (/dev/zero has no
// size), and, where a folder is listed, only regular files, opened without blocking on a FIFO.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileTooLargeError, readCapped } from '../../../../src/main/core/ground/read-capped';
import { readTemplates } from '../../../../src/main/core/library/templates';

const dir = mkdtempSync(join(tmpdir(), 'clab-read-capped-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readCapped', () => {
  it('stops reading /dev/zero past the bound and says more was there', () => {
    expect(() => readCapped('/dev/zero', { maxBytes: 1024 * 1024 })).toThrow(FileTooLargeError);
    expect(() => readCapped('/dev/zero', { maxBytes: 1024 * 1024 })).toThrow(/more than 1048576 bytes were read/);
    expect(readCapped('/dev/zero', { maxBytes: 10, head: true })).toEqual(Buffer.alloc(10));
  });

  it('refuses a FIFO at once where only regular files are read', () => {
    const fifo = join(dir, 'pipe.run.json');
    execFileSync('mkfifo', [fifo]);
    expect(() => readCapped(fifo, { maxBytes: 1024, regularOnly: true })).toThrow(
      /pipe\.run\.json is a FIFO \(named pipe\), not a regular file/,
    );
    expect(() => readCapped('/dev/null', { maxBytes: 1024, regularOnly: true })).toThrow(/is a character device/);
  });

  it('leaves a FIFO or a device among the templates out, without blocking on it', () => {
    const templates = join(dir, 'templates');
    execFileSync('mkdir', [templates]);
    writeFileSync(join(templates, 'a.scenario.json'), JSON.stringify({ name: 'A', description: 'first' }));
    execFileSync('mkfifo', [join(templates, 'b.scenario.json')]);
    execFileSync('mknod', [join(templates, 'c.scenario.json'), 'c', '1', '5']);
    expect(readTemplates(templates).map((t) => t.name)).toEqual(['A']);
  });
});
