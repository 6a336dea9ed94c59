// Packed runs kept on disk (~/.clab/cache/packed-runs, CLAB_HOME over ~/.clab), so that a large
// run opened after the lab restarted, or saved by `clab run` in another process, goes to the page
// without its JSON being read, parsed and checked again (about half a second for 100 000 events).
// The run's file stays the record: an entry is a copy made for speed, used only while it was made
// from the file as it is now (the same device, inode, size and times; or, where those changed, the
// same bytes: their SHA-256), whole (its length and SHA-256), and of this format; anything else is
// passed over and packed again from the file. As ssh's StrictModes, an entry is used only where no
// one else could have put it there: in a folder of the user's that only they may write, and written
// by them; and never one larger than an entry is written (checked by its size before it is read).
//
//   entry <sha256 of the run file's absolute path>.pack:
//   [8 bytes "CLABPK01"][u32 LE: n][n bytes of UTF-8 JSON: EntryHead][zeros to a multiple of 8][the packed run]
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { writeFileAtomicChunks } from '../ground/atomic-file.js';
import { clabHome } from '../ground/clab-home.js';

const MAGIC = Buffer.from('CLABPK01', 'latin1');
/** An entry's head is a few hundred bytes; more is not an entry of ours. */
const MAX_HEAD_BYTES = 64 * 1024;
const ENTRY_NAME = /^[0-9a-f]{64}\.pack$/;

interface EntryHead {
  /** The run file it was packed from (its absolute path). */
  source: string;
  /** That file's identity and version when it was packed (packed-runs.ts versionOf). */
  version: string;
  /** The SHA-256 of that file's bytes, where known: a file touched, or rewritten as it was, is the same run. */
  content: string | null;
  bytes: number;
  sha256: string;
}

export interface PackedRunDiskLimits {
  /** Runs whose file is smaller are not kept on disk: they are read and packed in a few milliseconds. */
  minRecordBytes: number;
  /** One entry's bytes, at most: none larger is written, nor read. */
  entryBytes: number;
  /** The entries' bytes together, at most; the least recently used go first. */
  bytes: number;
  /** How many entries, at most. */
  entries: number;
}

export const PACKED_RUN_DISK_LIMITS: PackedRunDiskLimits = {
  minRecordBytes: 1024 * 1024,
  // The packing of the largest record a door opens (64 MiB: saved-runs.ts), with room to spare: a
  // packing is smaller than its record's JSON (the events' columns take fewer bytes than their text).
  entryBytes: 80 * 1024 * 1024,
  bytes: 1024 * 1024 * 1024,
  entries: 64,
};

/** ~/.clab/cache/packed-runs, CLAB_HOME over ~/.clab (clab-home.ts). */
export function defaultPackedRunDir(): string {
  return join(clabHome(), 'cache', 'packed-runs');
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const padded = (n: number) => Math.ceil(n / 8) * 8;
const formatMiB = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
/** Distinct notices said, at most: past this, said again rather than remembered without end. */
const NOTICES_REMEMBERED = 64;

function readExactly(fd: number, into: Uint8Array, position: number): boolean {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) return false;
    done += n;
  }
  return true;
}

export class PackedRunDisk {
  private readonly noticed = new Set<string>();

  /** `notice` hears, once each, why an entry or the whole folder is not used (one line). */
  constructor(
    readonly dir: string,
    readonly limits: PackedRunDiskLimits = PACKED_RUN_DISK_LIMITS,
    private readonly notice: (message: string) => void = () => {},
  ) {}

  /** The most one entry holds, as written and as read. */
  private get maxEntryBytes(): number {
    return Math.min(this.limits.entryBytes, this.limits.bytes);
  }

  private say(message: string): void {
    if (this.noticed.has(message)) return;
    if (this.noticed.size >= NOTICES_REMEMBERED) this.noticed.clear();
    this.noticed.add(message);
    this.notice(message);
  }

  /**
   * Whether the folder's entries can be trusted, saying why not: not where another user could have
   * put or changed them, the folder being theirs or writable by group or others (as ssh's
   * StrictModes). Where there are no users' ids (Windows), nothing is checked.
   */
  private folderTrusted(): boolean {
    const uid = process.getuid?.();
    if (uid === undefined) return true;
    let s;
    try {
      s = statSync(this.dir);
    } catch {
      return true; // not there: nothing in it yet
    }
    const problem =
      s.uid !== uid
        ? `it belongs to user ${s.uid}, not to you (user ${uid})`
        : (s.mode & 0o022) !== 0
          ? `it is writable by group or others (mode ${(s.mode & 0o777).toString(8)}); chmod go-w it to use it`
          : null;
    if (problem !== null) this.say(`packed runs are not kept on disk (${this.dir}): ${problem}`);
    return problem === null;
  }

  private entryOf(file: string): string {
    return join(this.dir, `${sha256(Buffer.from(resolve(file), 'utf8'))}.pack`);
  }

  /**
   * The packed run kept for `file` at `version`, in an ArrayBuffer of its own; null where there
   * is none, or it is of another version, broken or not ours (never an error: the caller packs).
   */
  read(file: string, version: string): Uint8Array<ArrayBuffer> | null {
    return this.readWhere(file, (head) => head.version === version);
  }

  /** As read, for a file whose version changed but whose bytes have this SHA-256 (as when it was packed). */
  readByContent(file: string, content: string): Uint8Array<ArrayBuffer> | null {
    return this.readWhere(file, (head) => head.content === content);
  }

  private readWhere(file: string, holds: (head: Partial<EntryHead>) => boolean): Uint8Array<ArrayBuffer> | null {
    if (!this.folderTrusted()) return null;
    const entry = this.entryOf(file);
    let fd: number;
    try {
      fd = openSync(entry, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    } catch {
      return null;
    }
    try {
      const size = fstatSync(fd);
      if (!size.isFile() || size.size < MAGIC.length + 4) return null;
      const uid = process.getuid?.();
      if (uid !== undefined && size.uid !== uid) {
        this.say(`the packed run kept for ${file} was passed over: ${entry} belongs to user ${size.uid}, not to you (user ${uid})`);
        return null;
      }
      if (size.size > this.maxEntryBytes) {
        this.say(
          `the packed run kept for ${file} was passed over: ${entry} is ${size.size} bytes, more than the ${this.maxEntryBytes} bytes (${formatMiB(this.maxEntryBytes)}) an entry may hold`,
        );
        return null;
      }
      const start = Buffer.alloc(MAGIC.length + 4);
      if (!readExactly(fd, start, 0) || !start.subarray(0, MAGIC.length).equals(MAGIC)) return null;
      const headLength = start.readUInt32LE(MAGIC.length);
      if (headLength > MAX_HEAD_BYTES) return null;
      const headBytes = Buffer.alloc(headLength);
      if (!readExactly(fd, headBytes, start.length)) return null;
      const head = JSON.parse(headBytes.toString('utf8')) as Partial<EntryHead>;
      const offset = padded(start.length + headLength);
      if (
        head.source !== resolve(file) ||
        !holds(head) ||
        !Number.isSafeInteger(head.bytes) ||
        offset + head.bytes! !== size.size ||
        typeof head.sha256 !== 'string'
      )
        return null;
      const packed = new Uint8Array(new ArrayBuffer(head.bytes!));
      if (!readExactly(fd, packed, offset) || sha256(packed) !== head.sha256) return null;
      try {
        const now = new Date();
        utimesSync(entry, now, now); // used: the last to go
      } catch {
        // a read-only cache still serves
      }
      return packed;
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Keeps `packed` for `file` at `version` (written whole or not at all), if the file is at least
   * minRecordBytes, the entry at most entryBytes and the folder one to trust, then lets the least
   * recently used entries go beyond the limits. Throws where the cache cannot be written (the
   * caller carries on without it).
   */
  write(file: string, version: string, packed: Uint8Array, recordBytes: number, content: string | null = null): boolean {
    if (recordBytes < this.limits.minRecordBytes || packed.length > this.maxEntryBytes) return false;
    const head: EntryHead = { source: resolve(file), version, content, bytes: packed.length, sha256: sha256(packed) };
    const headBytes = Buffer.from(JSON.stringify(head), 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(headBytes.length);
    const pad = Buffer.alloc(padded(MAGIC.length + 4 + headBytes.length) - (MAGIC.length + 4 + headBytes.length));
    if (MAGIC.length + 4 + headBytes.length + pad.length + packed.length > this.maxEntryBytes) return false;
    if (!existsSync(this.dir)) mkdirSync(this.dir, { recursive: true, mode: 0o700 }); // the user's runs: theirs alone
    if (!this.folderTrusted()) return false; // what is written there would not be used
    const entry = this.entryOf(file);
    writeFileAtomicChunks(entry, (write) => {
      for (const part of [MAGIC, length, headBytes, pad, packed]) write(part);
    });
    this.evict(entry);
    return true;
  }

  /** Lets go of what is kept for `file` (the run was deleted). */
  remove(file: string): void {
    rmSync(this.entryOf(file), { force: true });
  }

  /** The entries beyond the limits, least recently used first, removed (`keep` stays). */
  private evict(keep: string): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    const entries: { path: string; bytes: number; used: number }[] = [];
    for (const name of names) {
      if (!ENTRY_NAME.test(name)) continue;
      const path = join(this.dir, name);
      try {
        const s = lstatSync(path);
        if (s.isFile()) entries.push({ path, bytes: s.size, used: path === keep ? Infinity : s.mtimeMs });
      } catch {
        // removed meanwhile
      }
    }
    entries.sort((a, b) => a.used - b.used);
    let bytes = entries.reduce((sum, e) => sum + e.bytes, 0);
    let count = entries.length;
    for (const e of entries) {
      if (count <= this.limits.entries && bytes <= this.limits.bytes) break;
      if (e.path === keep) continue;
      rmSync(e.path, { force: true });
      bytes -= e.bytes;
      count--;
    }
  }
}

/** The size of a file, or 0 where it cannot be stat'ed. */
export function fileBytes(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
