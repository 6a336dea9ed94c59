// Saved runs packed for the page (shared/run/record/packed-run.ts), kept for a second open: reading,
// parsing and checking a record of 100 000 events, then packing it, takes the lab about half a
// second. A packed run is kept under its file's identity and version (device, inode, size, change
// and modification times), so a file written since (atomically: a new inode; or in place: a new
// ctime) is read again; at most a few are kept, the least recently used let go first. Where a
// PackedRunDisk is given, a large run's packing is also kept on disk for other processes and later
// sessions (packed-run-disk.ts), and looked for there before a file is packed. Opens of a file
// that come while it is being packed (a prefetch, then the open) wait for that packing.
import { statSync } from 'node:fs';
import type { Utf8 } from '../../../shared/run/record/packed-run.js';
import type { PackedRunDisk } from './packed-run-disk.js';

/** Node's UTF-8, as packRecord takes it. */
export const nodeUtf8: Utf8 = {
  encode: (text) => Buffer.from(text, 'utf8'),
  decode: (bytes) => new TextDecoder('utf-8', { fatal: true }).decode(bytes),
};

export interface PackedRunLimits {
  /** How many packed runs are kept. */
  runs: number;
  /** Their bytes together, at most; a packed run larger than this is not kept. */
  bytes: number;
}

/** Three runs of 100 000 events (6 MB packed each) fit many times; three of the largest a door opens (64 MiB of record) about fit. */
export const PACKED_RUN_LIMITS: PackedRunLimits = { runs: 3, bytes: 192 * 1024 * 1024 };

/** A packing and the SHA-256 of the bytes it was packed from (null where not known). */
export interface Packing {
  packed: Uint8Array<ArrayBuffer>;
  content: string | null;
  /** The packing is the file's own (a packed record file): read from it again as fast as from a copy, so none is kept on disk. */
  inFile?: boolean;
}

/**
 * Packs a file's run. `reuse(content)` gives the packing kept on disk for the file's bytes with
 * that SHA-256, if any (a file touched or rewritten as it was): a packer that hashes the bytes it
 * read may return that instead of packing.
 */
export type Packer = (file: string, reuse: (content: string) => Uint8Array<ArrayBuffer> | null) => Packing | Promise<Packing>;

interface Kept {
  version: string;
  packed: Uint8Array<ArrayBuffer>;
}

/** The file's identity and version, or null where it cannot be stat'ed (then the loader says why). */
function versionOf(file: string): { version: string; bytes: number } | null {
  try {
    const s = statSync(file, { bigint: true });
    return s.isFile() ? { version: `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`, bytes: Number(s.size) } : null;
  } catch {
    return null;
  }
}

export class PackedRuns {
  /** In order of use, the most recent last. */
  private readonly kept = new Map<string, Kept>();
  /** The version of each file whose prefetch failed: not tried again until the file changes. */
  private readonly failed = new Map<string, string>();
  /** The packings under way, by file and version (as many as opens at once). */
  private readonly packing = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

  /** Why the disk cache could not be written, once (the lab goes on without it). */
  private diskProblem: string | null = null;

  constructor(
    private readonly pack: Packer,
    private readonly limits: PackedRunLimits = PACKED_RUN_LIMITS,
    private readonly disk: PackedRunDisk | null = null,
    private readonly onDiskProblem: (message: string) => void = () => {},
  ) {}

  /**
   * The file's packed run: the one kept, if the file has not changed since; else the one on disk,
   * if made from the file as it is; else the one being packed, or packed now (and kept). Rejects
   * as `pack` throws.
   */
  async get(file: string): Promise<Uint8Array<ArrayBuffer>> {
    const v = versionOf(file);
    const version = v?.version ?? null;
    const known = this.kept.get(file);
    this.kept.delete(file);
    if (known && version !== null && known.version === version) {
      this.kept.set(file, known);
      return known.packed;
    }
    const key = `${version}:${file}`;
    const under = this.packing.get(key);
    if (under) return under;
    const packing = this.load(file, v).finally(() => this.packing.delete(key));
    this.packing.set(key, packing);
    return packing;
  }

  private async load(file: string, v: { version: string; bytes: number } | null): Promise<Uint8Array<ArrayBuffer>> {
    const version = v?.version ?? null;
    const stored = v && this.disk?.read(file, v.version);
    if (stored) {
      if (stored.length <= this.limits.bytes) this.keep(file, { version: version!, packed: stored });
      return stored;
    }
    const { packed, content, inFile } = await this.pack(file, (content) =>
      v && this.disk ? this.disk.readByContent(file, content) : null,
    );
    if (version !== null && packed.length <= this.limits.bytes) this.keep(file, { version, packed });
    // Stored (under the file's version now, a packing reused by content too) only if the file is
    // still as it was before it was read.
    if (v && this.disk && !inFile && versionOf(file)?.version === v.version) {
      try {
        this.disk.write(file, v.version, packed, v.bytes, content);
      } catch (e) {
        if (this.diskProblem === null) {
          this.diskProblem = `packed runs are not kept on disk (${this.disk.dir}): ${(e as Error).message}`;
          this.onDiskProblem(this.diskProblem);
        }
      }
    }
    return packed;
  }

  /**
   * Packs the file ahead of an open that may come. A file that cannot be opened is left for that
   * open to report, and not tried again ahead of time until it changes.
   */
  async prefetch(file: string): Promise<void> {
    const version = versionOf(file)?.version ?? null;
    if (version === null || this.failed.get(file) === version) return;
    try {
      await this.get(file);
      this.failed.delete(file);
    } catch {
      this.failed.set(file, version);
    }
  }

  /** Lets go of what is kept of a file (deleted), here and on disk. */
  forget(file: string): void {
    this.kept.delete(file);
    this.failed.delete(file);
    try {
      this.disk?.remove(file);
    } catch {
      // what cannot be removed is passed over when read: it names the file's old version
    }
  }

  /** Whether the file's current version is kept (in memory). */
  has(file: string): boolean {
    const version = versionOf(file)?.version ?? null;
    return version !== null && this.kept.get(file)?.version === version;
  }

  private keep(file: string, kept: Kept): void {
    this.kept.set(file, kept);
    let bytes = 0;
    for (const k of this.kept.values()) bytes += k.packed.length;
    for (const [old, k] of this.kept) {
      if (this.kept.size <= this.limits.runs && bytes <= this.limits.bytes) break;
      this.kept.delete(old);
      bytes -= k.packed.length;
    }
  }
}
