// Packed runs kept on disk between processes: used only for the file as it is now, whole and
// ours; a broken, stale or foreign entry is passed over and the file packed again; bounded.
import {
  chmodSync,
  chownSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
  writeSync,
  openSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PackedRunDisk, sha256, type PackedRunDiskLimits } from '../../../../src/main/core/library/packed-run-disk';
import { PackedRuns } from '../../../../src/main/core/library/packed-runs';

const root = mkdtempSync(join(tmpdir(), 'clab-packed-disk-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
const fresh = () => join(root, `case-${n++}`);
const limits = (o: Partial<PackedRunDiskLimits> = {}): PackedRunDiskLimits => ({
  minRecordBytes: 0,
  entryBytes: 1 << 20,
  bytes: 1 << 20,
  entries: 16,
  ...o,
});
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** A runs folder, a disk store, and a PackedRuns over them whose packer packs a file's text as its bytes and counts its calls. */
function lab(o: Partial<PackedRunDiskLimits> = {}) {
  const runsDir = fresh();
  const cacheDir = fresh();
  const packed: string[] = [];
  const problems: string[] = [];
  const disk = new PackedRunDisk(cacheDir, limits(o), (m) => problems.push(m));
  const session = () =>
    new PackedRuns(
      (file) => {
        packed.push(file);
        return { packed: new TextEncoder().encode(`packed:${readFileSync(file, 'utf8')}`), content: null };
      },
      { runs: 3, bytes: 1 << 20 },
      disk,
      (m) => problems.push(m),
    );
  const file = (name: string, content: string) => {
    writeFileSync(join(runsDir, name), content, { flag: 'wx' });
    return join(runsDir, name);
  };
  mkdirSync(runsDir);
  return { runsDir, cacheDir, disk, packed, problems, session, file };
}
const entries = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.pack'));
/** The file's version as PackedRuns keys it (packed-runs.ts versionOf). */
const versionOf = (f: string) => {
  const s = statSync(f, { bigint: true });
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
};

/**
 * Puts an entry for `file` at its version whose packing is `bytes` zeros: whole and right by its
 * head (its length and SHA-256), its zeros a hole in a sparse file, never written.
 */
function sparseEntry(cacheDir: string, file: string, bytes: number): string {
  const head = Buffer.from(
    JSON.stringify({ source: resolve(file), version: versionOf(file), content: null, bytes, sha256: sha256(new Uint8Array(bytes)) }),
  );
  const start = Buffer.alloc(12);
  start.write('CLABPK01', 'latin1');
  start.writeUInt32LE(head.length, 8);
  const path = join(cacheDir, `${sha256(Buffer.from(resolve(file)))}.pack`);
  mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  const fd = openSync(path, 'w', 0o600);
  writeSync(fd, Buffer.concat([start, head]));
  closeSync(fd);
  truncateSync(path, Math.ceil((start.length + head.length) / 8) * 8 + bytes);
  return path;
}

describe('packed runs kept on disk', () => {
  it('gives a later session the packing of an unchanged file without packing it again', async () => {
    const { session, file, packed, cacheDir } = lab();
    const run = file('a.run.json', 'record a');
    expect(text(await session().get(run))).toBe('packed:record a');
    expect(entries(cacheDir)).toHaveLength(1);
    const later = await session().get(run);
    expect(text(later)).toBe('packed:record a');
    expect(later.byteOffset).toBe(0);
    expect(later.buffer.byteLength).toBe(later.length); // its own buffer: nothing of the entry's head travels with it
    expect(packed).toEqual([run]);
  });

  it('packs again a file replaced since (a new inode) or changed in place with its times put back', async () => {
    const { session, file, packed } = lab();
    const run = file('b.run.json', 'older');
    await session().get(run);
    const next = file('b2.run.json', 'newer');
    renameSync(next, run);
    expect(text(await session().get(run))).toBe('packed:newer');
    const { atime, mtime } = statSync(run);
    writeFileSync(run, 'NEWER');
    utimesSync(run, atime, mtime);
    expect(text(await session().get(run))).toBe('packed:NEWER');
    expect(packed).toEqual([run, run, run]);
  });

  it('passes over an entry that is cut short, altered, or not ours, and writes it again', async () => {
    const { session, file, packed, cacheDir } = lab();
    const run = file('c.run.json', 'the record');
    await session().get(run);
    const [entry] = entries(cacheDir);
    const path = join(cacheDir, entry);
    const whole = readFileSync(path);

    writeFileSync(path, whole.subarray(0, whole.length - 3));
    expect(text(await session().get(run))).toBe('packed:the record');
    expect(readFileSync(path)).toEqual(whole); // written again, whole

    const altered = Buffer.from(whole);
    altered[altered.length - 1] ^= 1;
    writeFileSync(path, altered);
    expect(text(await session().get(run))).toBe('packed:the record');

    writeFileSync(path, 'not an entry at all');
    expect(text(await session().get(run))).toBe('packed:the record');
    expect(packed).toHaveLength(4);
    expect(await session().get(run)).toBeDefined();
    expect(packed).toHaveLength(4);
  });

  it("never uses another file's entry (an entry names its source)", async () => {
    const { disk, file } = lab();
    const a = file('d.run.json', 'same');
    const b = file('e.run.json', 'same');
    const version = '1:2:3:4:5';
    disk.write(a, version, new Uint8Array([1, 2, 3]), 10);
    expect(disk.read(a, version)).toEqual(new Uint8Array([1, 2, 3]));
    expect(disk.read(b, version)).toBeNull();
    expect(disk.read(a, '1:2:3:4:6')).toBeNull();
  });

  it('finds the packing of a file touched, or rewritten as it was, by the SHA-256 of its bytes', async () => {
    const { file, disk } = lab();
    const packs: string[] = [];
    const session = () =>
      new PackedRuns(
        (f, reuse) => {
          const bytes = readFileSync(f);
          const content = sha256(bytes);
          const kept = reuse(content);
          if (!kept) packs.push(f);
          return { packed: kept ?? new TextEncoder().encode(`packed:${bytes.toString()}`), content };
        },
        { runs: 3, bytes: 1 << 20 },
        disk,
      );
    const run = file('t.run.json', 'same bytes');
    expect(text(await session().get(run))).toBe('packed:same bytes');
    const later = new Date(Date.now() + 60_000);
    utimesSync(run, later, later);
    expect(text(await session().get(run))).toBe('packed:same bytes');
    writeFileSync(run, 'same bytes'); // rewritten in place as it was
    expect(text(await session().get(run))).toBe('packed:same bytes');
    expect(packs).toEqual([run]);
    writeFileSync(run, 'other bytes'); // the same size, other bytes
    expect(text(await session().get(run))).toBe('packed:other bytes');
    expect(packs).toEqual([run, run]);
  });

  it('keeps no run smaller than minRecordBytes on disk', async () => {
    const { session, file, cacheDir } = lab({ minRecordBytes: 100 });
    await session().get(file('f.run.json', 'small'));
    expect(() => readdirSync(cacheDir)).toThrow(/ENOENT/);
    await session().get(file('g.run.json', 'x'.repeat(100)));
    expect(entries(cacheDir)).toHaveLength(1);
  });

  it('keeps at most its entries and bytes, the least recently used going first', async () => {
    const { session, file, cacheDir, disk } = lab({ entries: 2, bytes: 1 << 20 });
    const [a, b, c] = ['h', 'i', 'j'].map((x) => file(`${x}.run.json`, x.repeat(50)));
    await session().get(a);
    await session().get(b);
    // a used after b: b is now the least recently used
    const old = new Date(Date.now() - 60_000);
    for (const e of entries(cacheDir)) utimesSync(join(cacheDir, e), old, old);
    expect(await session().get(a)).toBeDefined();
    await session().get(c);
    expect(entries(cacheDir)).toHaveLength(2);
    expect(disk.read(a, versionOf(a))).not.toBeNull();
    expect(disk.read(b, versionOf(b))).toBeNull();
    expect(disk.read(c, versionOf(c))).not.toBeNull();

    const tight = lab({ bytes: 400 }); // about one entry (some 300 bytes each)
    const runs = ['k', 'l', 'm'].map((x) => tight.file(`${x}.run.json`, x.repeat(50)));
    for (const r of runs) await tight.session().get(r);
    const total = entries(tight.cacheDir).reduce((s, e) => s + statSync(join(tight.cacheDir, e)).size, 0);
    expect(total).toBeLessThanOrEqual(400);
    expect(entries(tight.cacheDir).length).toBeGreaterThanOrEqual(1);
  });

  it('removes the entry of a run the lab deleted', async () => {
    const { session, file, cacheDir } = lab();
    const run = file('n.run.json', 'to delete');
    const s = session();
    await s.get(run);
    expect(entries(cacheDir)).toHaveLength(1);
    rmSync(run);
    s.forget(run);
    expect(entries(cacheDir)).toHaveLength(0);
  });

  it('does not follow a link standing at an entry, and refuses to write over one', async () => {
    const { session, file, cacheDir, packed, problems } = lab();
    const run = file('o.run.json', 'linked');
    await session().get(run);
    const [entry] = entries(cacheDir);
    const path = join(cacheDir, entry);
    const elsewhere = fresh();
    renameSync(path, elsewhere);
    symlinkSync(elsewhere, path);
    expect(text(await session().get(run))).toBe('packed:linked'); // packed again: the link is not read
    expect(packed).toHaveLength(2);
    expect(problems.join('\n')).toMatch(/symbolic link/);
  });

  it('never uses an entry another user wrote: says so in one line and packs the run again', async (ctx) => {
    ctx.skip(process.getuid?.() !== 0, 'giving the entry to another user (chown) needs root');
    const { session, file, cacheDir, packed, problems } = lab();
    const run = file('r.run.json', 'mine');
    await session().get(run);
    const [entry] = entries(cacheDir);
    chownSync(join(cacheDir, entry), 65534, 65534); // nobody's now, as if another user had put it there
    expect(text(await session().get(run))).toBe('packed:mine');
    expect(packed).toEqual([run, run]);
    expect(problems).toEqual([
      `the packed run kept for ${run} was passed over: ${join(cacheDir, entry)} belongs to user 65534, not to you (user 0)`,
    ]);
  });

  it('uses no entry while the folder is writable by group or others, and writes none there', async () => {
    const { session, file, cacheDir, packed, problems } = lab();
    const run = file('s.run.json', 'kept');
    await session().get(run);
    const [entry] = entries(cacheDir);
    const written = statSync(join(cacheDir, entry)).ino;
    for (const mode of [0o770, 0o707]) {
      chmodSync(cacheDir, mode);
      expect(text(await session().get(run))).toBe('packed:kept');
      expect(statSync(join(cacheDir, entry)).ino).toBe(written); // not written again either
    }
    expect(packed).toEqual([run, run, run]);
    expect(problems).toEqual([
      `packed runs are not kept on disk (${cacheDir}): it is writable by group or others (mode 770); chmod go-w it to use it`,
      `packed runs are not kept on disk (${cacheDir}): it is writable by group or others (mode 707); chmod go-w it to use it`,
    ]);
    chmodSync(cacheDir, 0o700);
    expect(text(await session().get(run))).toBe('packed:kept');
    expect(packed).toHaveLength(3); // the entry is used again
  });

  it('passes over an entry larger than any it writes, by its size before reading it, in one line', async () => {
    const { session, file, cacheDir, packed, problems, disk } = lab({ entryBytes: 4096 });
    const run = file('u.run.json', 'the record');
    const entry = sparseEntry(cacheDir, run, 8192); // whole and right by its head, but over the bound
    const size = statSync(entry).size;
    expect(text(await session().get(run))).toBe('packed:the record');
    expect(packed).toEqual([run]);
    expect(problems).toEqual([
      `the packed run kept for ${run} was passed over: ${entry} is ${size} bytes, more than the 4096 bytes (0 MiB) an entry may hold`,
    ]);
    expect(disk.write(run, versionOf(run), new Uint8Array(8192), 10)).toBe(false); // none that large is written
  });

  it('says once that the cache cannot be written, and the open goes on', async () => {
    const { session, file, cacheDir, problems } = lab();
    const a = file('p.run.json', 'one');
    const b = file('q.run.json', 'two');
    writeFileSync(cacheDir, 'a file where the folder would go'); // fails for root too, unlike a read-only folder
    const s = session();
    expect(text(await s.get(a))).toBe('packed:one');
    expect(text(await s.get(b))).toBe('packed:two');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(cacheDir);
  });
});
