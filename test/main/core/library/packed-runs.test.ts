// Packed saved runs kept for the next open: the same bytes while the file stays as it was, packed
// again once it changes in any way, and never more than the limits.
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PackedRuns } from '../../../../src/main/core/library/packed-runs';

const dir = mkdtempSync(join(tmpdir(), 'clab-packed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A cache whose packer packs a file's text as its bytes, and counts how often it was asked. */
function counted(limits = { runs: 3, bytes: 1024 }) {
  const packed: string[] = [];
  const runs = new PackedRuns((file) => {
    packed.push(file);
    const content = readFileSync(file, 'utf8');
    if (content.startsWith('broken')) throw new Error(`${file}: not a valid run record`);
    return { packed: new TextEncoder().encode(content), content: null };
  }, limits);
  return { runs, packed };
}
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
let n = 0;
const fileWith = (content: string) => {
  const file = join(dir, `run-${n++}.run.json`);
  writeFileSync(file, content);
  return file;
};

describe('packed runs kept for the next open', () => {
  it('gives the kept bytes for a file that has not changed, without packing it again', async () => {
    const { runs, packed } = counted();
    const file = fileWith('first');
    const once = await runs.get(file);
    expect(text(once)).toBe('first');
    expect(await runs.get(file)).toBe(once);
    expect(packed).toEqual([file]);
  });

  it('packs again a file replaced by another (a new inode, as atomic writes do)', async () => {
    const { runs, packed } = counted();
    const file = fileWith('older');
    await runs.get(file);
    const next = fileWith('newer');
    renameSync(next, file);
    expect(text(await runs.get(file))).toBe('newer');
    expect(packed).toEqual([file, file]);
  });

  it('packs again a file changed in place even with its size and modification time put back', async () => {
    const { runs } = counted();
    const file = fileWith('aaaa');
    await runs.get(file);
    const { atime, mtime } = statSync(file);
    const fd = openSync(file, 'r+');
    writeSync(fd, 'bbbb', 0);
    closeSync(fd);
    utimesSync(file, atime, mtime);
    expect(text(await runs.get(file))).toBe('bbbb');
  });

  it('keeps at most the runs and bytes of its limits, letting go of the least recently used first', async () => {
    const { runs, packed } = counted({ runs: 2, bytes: 10 });
    const [a, b, c] = ['aaaa', 'bbbb', 'cccc'].map(fileWith);
    await runs.get(a);
    await runs.get(b);
    await runs.get(a); // a is now the most recently used
    await runs.get(c); // two at most: b goes
    expect([a, b, c].map((f) => runs.has(f))).toEqual([true, false, true]);
    const large = fileWith('x'.repeat(11));
    await runs.get(large);
    expect(runs.has(large)).toBe(false);
    expect([a, c].map((f) => runs.has(f))).toEqual([true, true]);
    await runs.get(c);
    await runs.get(b); // 4 + 4 bytes kept with b: a, the least recently used, goes (runs: 2)
    expect([a, b, c].map((f) => runs.has(f))).toEqual([false, true, true]);
    expect(packed.filter((f) => f === b)).toHaveLength(2);
  });

  it('keeps no failure: an open of a broken file says why each time, and packs it once it is fixed', async () => {
    const { runs } = counted();
    const file = fileWith('broken');
    await expect(runs.get(file)).rejects.toThrow('not a valid run record');
    await expect(runs.get(file)).rejects.toThrow('not a valid run record');
    writeFileSync(file, 'fixed');
    expect(text(await runs.get(file))).toBe('fixed');
  });

  it('prefetches quietly, and does not try a file that failed again until it changes', async () => {
    const { runs, packed } = counted();
    const file = fileWith('broken');
    await runs.prefetch(file);
    await runs.prefetch(file);
    expect(packed).toEqual([file]);
    writeFileSync(file, 'good now');
    await runs.prefetch(file);
    expect(runs.has(file)).toBe(true);
    expect(text(await runs.get(file))).toBe('good now');
    expect(packed).toEqual([file, file]);
    await runs.prefetch(join(dir, 'missing.run.json'));
  });

  it('gives an open that comes while the file is being packed (after a prefetch) that packing, not another', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const packed: string[] = [];
    const runs = new PackedRuns(async (file) => {
      packed.push(file);
      await released;
      return { packed: new TextEncoder().encode(readFileSync(file, 'utf8')), content: null };
    });
    const file = fileWith('large');
    const prefetched = runs.prefetch(file);
    const opened = runs.get(file);
    release();
    await prefetched;
    expect(text(await opened)).toBe('large');
    expect(packed).toEqual([file]);
  });

  it('forgets a deleted file, and reports a missing one as the packer does', async () => {
    const { runs } = counted();
    const file = fileWith('gone soon');
    await runs.get(file);
    rmSync(file);
    runs.forget(file);
    expect(runs.has(file)).toBe(false);
    await expect(runs.get(file)).rejects.toThrow(/ENOENT/);
  });
});
