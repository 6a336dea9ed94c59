// Saved runs packed for the page (shared/run/packed-run.ts), kept for a second open: reading,
// parsing and checking a record of 100 000 events, then packing it, takes the lab about half a
// second. A packed run is kept under its file's identity and version (device, inode, size, change
// and modification times), so a file written since (atomically: a new inode; or in place: a new
// ctime) is read again; at most a few are kept, the least recently used let go first.
import { statSync } from 'node:fs';
import type { Utf8 } from '../../shared/run/packed-run.js';

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

interface Kept {
  version: string;
  packed: Uint8Array<ArrayBuffer>;
}

/** The file's identity and version, or null where it cannot be stat'ed (then the loader says why). */
function versionOf(file: string): string | null {
  try {
    const s = statSync(file, { bigint: true });
    return s.isFile() ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}` : null;
  } catch {
    return null;
  }
}

export class PackedRuns {
  /** In order of use, the most recent last. */
  private readonly kept = new Map<string, Kept>();
  /** The version of each file whose prefetch failed: not tried again until the file changes. */
  private readonly failed = new Map<string, string>();

  constructor(
    private readonly pack: (file: string) => Uint8Array<ArrayBuffer>,
    private readonly limits: PackedRunLimits = PACKED_RUN_LIMITS,
  ) {}

  /** The file's packed run: the one kept, if the file has not changed since; else packed now (and kept). Throws as `pack` does. */
  get(file: string): Uint8Array<ArrayBuffer> {
    const version = versionOf(file);
    const known = this.kept.get(file);
    this.kept.delete(file);
    if (known && version !== null && known.version === version) {
      this.kept.set(file, known);
      return known.packed;
    }
    const packed = this.pack(file);
    if (version !== null && packed.length <= this.limits.bytes) this.keep(file, { version, packed });
    return packed;
  }

  /**
   * Packs the file ahead of an open that may come. A file that cannot be opened is left for that
   * open to report, and not tried again ahead of time until it changes.
   */
  prefetch(file: string): void {
    const version = versionOf(file);
    if (version === null || this.failed.get(file) === version) return;
    try {
      this.get(file);
      this.failed.delete(file);
    } catch {
      this.failed.set(file, version);
    }
  }

  /** Lets go of what is kept of a file (deleted). */
  forget(file: string): void {
    this.kept.delete(file);
    this.failed.delete(file);
  }

  /** Whether the file's current version is kept. */
  has(file: string): boolean {
    const version = versionOf(file);
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
