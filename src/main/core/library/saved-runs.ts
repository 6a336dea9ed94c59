// The runs folder as the doors list and open it. A listing reads each record's head (the summary
// fields a record starts with, run.ts) once, and again only when the file changes; only regular
// files are read, opened without blocking, so a FIFO or a device named *.run.json is passed over
// and never stalls the lab. A record whose head lacks its summary (an older one) is read whole
// only while that is cheap; past that it is listed with what its head and the file tell, marked.
// A record larger than the bound every door shares (MAX_RECORD_BYTES) is listed, not loaded. A
// record is opened a chunk at a time and parsed in steps (record-store.ts), so a door goes on
// serving others.
import { lstatSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'jsonc-parser';
import { RUN_FILE_NAME, type SavedRun } from '../../../shared/run/api/api.js';
import { packRecord } from '../../../shared/run/record/packed-run.js';
import { RECORD_FORMAT, type RunRecord } from '../../../shared/run/record/record.js';
import { MAX_RECORD_BYTES } from '../../../shared/run/record/record-text.js';
import { defaultPackedRunDir, fileBytes, PACKED_RUN_DISK_LIMITS, PackedRunDisk, sha256 } from './packed-run-disk.js';
import { nodeUtf8, PACKED_RUN_LIMITS, PackedRuns } from './packed-runs.js';
import { readCapped, readChunk, type ChunkReader } from '../ground/read-capped.js';
import { nextTurn, packedRunOf, readRecordFile, readRecordFileBytes, recordFromBytes } from './record-store.js';

export const RUN_SUFFIX = '.run.json';
/** What a listing reads of a record it has not seen: its summary fields come first. */
const HEAD_BYTES = 64 * 1024;
/** An older record whose head lacks its summary is read whole for it up to this (tens of ms); past it, not. */
const WHOLE_SUMMARY_BYTES = 4 * 1024 * 1024;

type Summary = Omit<SavedRun, 'path'>;

interface Seen {
  mtimeMs: number;
  size: number;
  ino: number;
  /** null: not a record (listed never, until it changes). */
  summary: Summary | null;
}

export class SavedRuns {
  private readonly seen = new Map<string, Seen>();
  private readonly packed: PackedRuns;
  private readonly openOptions: { maxBytes: number; regularOnly: true; read: ChunkReader };

  /**
   * `packedDir`: where large runs' packings are kept across processes and sessions
   * (packed-run-disk.ts); null keeps them in memory only. `warn` hears once why they cannot be.
   * `read` reads each chunk of a record (readChunk).
   */
  constructor(
    readonly dir: string,
    packedDir: string | PackedRunDisk | null = null,
    warn: (message: string) => void = () => {},
    read: ChunkReader = readChunk,
  ) {
    this.openOptions = { maxBytes: MAX_RECORD_BYTES, regularOnly: true, read };
    const disk = typeof packedDir === 'string' ? new PackedRunDisk(packedDir, PACKED_RUN_DISK_LIMITS, warn) : packedDir;
    this.packed = new PackedRuns(
      async (file, reuse) => {
        // Read once; where the disk may keep it, hashed (a touched file's packing is found by its
        // bytes), then parsed if need be.
        const bytes = await readRecordFileBytes(file, this.openOptions);
        // A packed record file holds the page's packing as it is (the page checks every part).
        const inFile = packedRunOf(file, bytes);
        if (inFile) return { packed: inFile, content: null, inFile: true };
        const content = disk && bytes.length >= disk.limits.minRecordBytes ? sha256(bytes) : null;
        const kept = content === null ? null : reuse(content);
        if (kept) return { packed: kept, content };
        const record = await recordFromBytes(file, bytes);
        await nextTurn();
        return { packed: packRecord(record, nodeUtf8), content };
      },
      PACKED_RUN_LIMITS,
      disk,
      warn,
    );
  }

  async list(): Promise<SavedRun[]> {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const runs: SavedRun[] = [];
    const listed = new Set<string>();
    for (const name of names.filter((n) => n.endsWith(RUN_SUFFIX))) {
      const path = join(this.dir, name);
      listed.add(path);
      const summary = await this.summaryOf(path, name);
      if (summary) runs.push({ path, ...summary });
    }
    for (const path of this.seen.keys()) if (!listed.has(path)) this.seen.delete(path);
    return runs.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  /** A record of the folder (or a file the user opened), validated, at most MAX_RECORD_BYTES. */
  open(file: string): Promise<RunRecord> {
    return readRecordFile(file, this.openOptions);
  }

  /** `open`'s record packed for the page (shared/run/record/packed-run.ts); kept for the next open while the file stays as it is. */
  openPacked(file: string): Promise<Uint8Array<ArrayBuffer>> {
    return this.packed.get(file);
  }

  /** Packs a record ahead of its open (the newest, when the list is shown); errors wait for the open. */
  prefetch(file: string): Promise<void> {
    return this.packed.prefetch(file);
  }

  /**
   * Deletes `<dir>/<name>`: `name` must be a run file's name (RUN_FILE_NAME, checked here too, as
   * a door may call without the API's schema) and the file a regular one, so a link or a folder
   * is never followed or removed. Returns the path removed.
   */
  remove(name: string): string {
    if (!RUN_FILE_NAME.test(name))
      throw new Error(`deleteRun: "${name}" is not the file name of a saved run (*.run.json, no folder); nothing was deleted`);
    const path = join(this.dir, name);
    let s;
    try {
      s = lstatSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT')
        throw new Error(`deleteRun: ${name} is not in the runs folder ${this.dir}`, { cause: e });
      throw e;
    }
    if (!s.isFile()) throw new Error(`deleteRun: ${path} is not a regular file; nothing was deleted`);
    rmSync(path);
    this.seen.delete(path);
    this.packed.forget(path);
    return path;
  }

  private async summaryOf(path: string, name: string): Promise<Summary | null> {
    let s;
    try {
      s = statSync(path);
    } catch {
      return null;
    }
    if (!s.isFile()) return null;
    const known = this.seen.get(path);
    if (known && known.mtimeMs === s.mtimeMs && known.size === s.size && known.ino === s.ino) return known.summary;
    let summary: Summary | null = null;
    try {
      const head = recordHead(readCapped(path, { maxBytes: HEAD_BYTES, regularOnly: true, head: true }).toString('utf8'));
      // Not a record (nor the start of one): not listed.
      if (head) summary = (await this.wholeSummary(head, path, name, s.size)) ?? partialSummary(head, name, s.mtime);
    } catch {
      // a file that cannot be read does not hide the other runs
    }
    if (summary) summary = { ...summary, bytes: s.size };
    this.seen.set(path, { mtimeMs: s.mtimeMs, size: s.size, ino: s.ino, summary });
    return summary;
  }

  /** The summary from the head, else from the whole record where that is cheap; null where neither can give it. */
  private async wholeSummary(head: RecordHead, path: string, name: string, size: number): Promise<Summary | null> {
    const fromHead = headSummary(head, name);
    if (fromHead || size > WHOLE_SUMMARY_BYTES) return fromHead;
    try {
      return fullSummary(await this.open(path), name);
    } catch {
      return null; // cut short, or spoilt: listed with what its head tells
    }
  }
}

/**
 * After `clab run` saved a large run: packs it into the packed runs kept on disk, as the app does
 * with the runs it saves, so that the app's first open of it reads no JSON. Quiet; a run smaller
 * than the disk's minimum is left as it is (it opens in milliseconds).
 */
export async function keepPackedForLaterOpens(
  file: string,
  warn: (message: string) => void,
  packedDir: string = defaultPackedRunDir(),
): Promise<void> {
  if (fileBytes(file) < PACKED_RUN_DISK_LIMITS.minRecordBytes) return;
  await new SavedRuns(dirname(file), packedDir, warn).prefetch(file);
}

function scenarioName(scenario: unknown, fileName: string): string | null {
  if (scenario === undefined || scenario === null || typeof scenario !== 'object') return fileName.slice(0, -RUN_SUFFIX.length);
  const name = (scenario as { name?: unknown }).name;
  return typeof name === 'string' ? name : null;
}

/** What a record file's first bytes parse to (tolerant: a head cut anywhere keeps the fields before the cut); null where they begin no record. */
type RecordHead = Record<string, unknown>;

function recordHead(head: string): RecordHead | null {
  const r = parse(head, [], { allowTrailingComma: false, disallowComments: true }) as RecordHead | undefined;
  return r && typeof r === 'object' && r.format === RECORD_FORMAT ? r : null;
}

const headString = (r: RecordHead, key: string) => (typeof r[key] === 'string' ? (r[key] as string) : null);

function headExpectation(r: RecordHead): Summary['expectation'] {
  const e = r.expectation as { met?: unknown; note?: unknown } | undefined;
  return typeof e?.met === 'boolean' && typeof e.note === 'string' ? { met: e.met, note: e.note } : undefined;
}

/** What an imported record says it read (it comes after the steps: a head cut before it lists the record unmarked). */
function headImported(r: RecordHead): Summary['imported'] {
  const i = r.imported as { source?: unknown; program?: unknown } | undefined;
  return typeof i?.source === 'string' && typeof i.program === 'string'
    ? { source: i.source.slice(0, 200), program: i.program.slice(0, 200) }
    : undefined;
}

/** The summary from a record's head, when it holds all of it (records since the summary came first). */
function headSummary(r: RecordHead, fileName: string): Summary | null {
  const backend = (r.environment as { backend?: unknown } | undefined)?.backend;
  const name = 'scenario' in r ? scenarioName(r.scenario, fileName) : null;
  const createdAt = headString(r, 'createdAt');
  const status = headString(r, 'status');
  if (createdAt === null || status === null || !Number.isInteger(r.world) || typeof backend !== 'string' || name === null) return null;
  const expectation = headExpectation(r);
  const imported = headImported(r);
  return {
    name,
    createdAt,
    finishedAt: headString(r, 'finishedAt'),
    status,
    ...(expectation ? { expectation } : {}),
    world: r.world as number,
    backend,
    ...(imported ? { imported } : {}),
  };
}

/**
 * A record whose head lacks its summary, too large to read whole for it (an older record) or
 * broken: what its head holds, else the file's name and time, marked `partial` (Open reads the
 * rest, or says where it breaks).
 */
function partialSummary(r: RecordHead, fileName: string, modified: Date): Summary {
  const backend = (r.environment as { backend?: unknown } | undefined)?.backend;
  const expectation = headExpectation(r);
  const imported = headImported(r);
  return {
    name: ('scenario' in r ? scenarioName(r.scenario, fileName) : null) ?? fileName.slice(0, -RUN_SUFFIX.length),
    createdAt: headString(r, 'createdAt') ?? modified.toISOString(),
    finishedAt: headString(r, 'finishedAt'),
    status: headString(r, 'status') ?? 'unknown',
    ...(expectation ? { expectation } : {}),
    world: Number.isInteger(r.world) ? (r.world as number) : null,
    backend: typeof backend === 'string' ? backend : null,
    ...(imported ? { imported } : {}),
    partial: true,
  };
}

function fullSummary(record: RunRecord, fileName: string): Summary {
  const name = scenarioName(record.scenario, fileName) ?? fileName.slice(0, -RUN_SUFFIX.length);
  return {
    name,
    createdAt: record.createdAt,
    finishedAt: record.finishedAt,
    status: record.status,
    ...(record.expectation ? { expectation: { met: record.expectation.met, note: record.expectation.note } } : {}),
    world: record.world,
    backend: record.environment.backend,
    ...(record.imported ? { imported: { source: record.imported.source, program: record.imported.program } } : {}),
  };
}
