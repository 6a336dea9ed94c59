// An NCCL A/B's file in the runs folder: `<name>.nccl-ab.json` beside `<name>/`, the folder of its
// side records, which it names relative to itself (so the pair can move together). Written whole
// and atomically at the A/B's end; read bounded and checked (shared/run/api/nccl-ab-file.ts).
import { lstatSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parse } from 'jsonc-parser';
import {
  abIssueLine,
  MAX_AB_FILE_BYTES,
  NCCL_AB_SUFFIX,
  ncclAbFileSchema,
  parseAbText,
  type NcclAbSummary,
} from '../../../../shared/run/api/nccl-ab-file.js';
import type { SavedAb } from '../../../../shared/run/api/api.js';
import { writeFileAtomic } from '../../ground/atomic-file.js';
import { readCapped, readCappedChunks } from '../../ground/read-capped.js';

/** The A/B file of a folder of side records: the folder's path and the suffix. */
export const abFileOf = (folder: string): string => `${folder.replace(/[\\/]+$/, '')}${NCCL_AB_SUFFIX}`;

/** Writes the A/B to `file`, each turn's record named relative to the file's folder; returns what was written. */
export function saveAb(file: string, summary: NcclAbSummary): NcclAbSummary {
  const dir = dirname(resolve(file));
  const saved: NcclAbSummary = {
    ...summary,
    turns: summary.turns.map((t) => ({ ...t, record: t.record === null ? null : relative(dir, resolve(t.record)).split(sep).join('/') })),
  };
  writeFileAtomic(file, `${JSON.stringify(saved, null, 2)}\n`);
  return saved;
}

/** The A/B in `file`, checked; an AbFileError (one line: the file, the JSON path, what was expected) or a read error otherwise. */
export async function readAbFile(file: string): Promise<NcclAbSummary> {
  const bytes = await readCappedChunks(file, { maxBytes: MAX_AB_FILE_BYTES, regularOnly: true });
  return parseAbText(file, bytes.toString('utf8'));
}

/** At most this many A/B files are listed (newest names last are cut first: the list is sorted by name). */
export const MAX_LISTED_ABS = 1000;
/** What the listing reads of each file: its fields before the turns and steps (the libraries' paths are the longest, 4 KiB each). */
const HEAD_BYTES = 64 * 1024;
const headSchema = ncclAbFileSchema.pick({ format: true, version: true, scenario: true, createdAt: true, repeats: true, libraries: true });

/** The A/B files in the runs folder, each from the head of its file, newest first; a broken one is listed last, with why. */
export function listAbFiles(runsDir: string): SavedAb[] {
  const rank = (ab: SavedAb) => (ab.ok ? ab.createdAt : '');
  return readAbHeads(runsDir).sort((a, b) => rank(b).localeCompare(rank(a)));
}

function readAbHeads(runsDir: string): SavedAb[] {
  let names: string[];
  try {
    names = readdirSync(runsDir);
  } catch {
    return [];
  }
  const files = names.filter((n) => n.endsWith(NCCL_AB_SUFFIX) && !n.startsWith('.')).sort();
  return files.slice(-MAX_LISTED_ABS).flatMap((name): SavedAb[] => {
    const path = join(runsDir, name);
    try {
      if (!lstatSync(path).isFile()) return [];
      // Tolerant: a head cut anywhere yields the fields before the cut.
      const head = parse(readCapped(path, { maxBytes: HEAD_BYTES, head: true, regularOnly: true }).toString('utf8')) as unknown;
      const checked = headSchema.safeParse(head);
      if (!checked.success) return [{ ok: false, path, problem: abIssueLine(name, checked.error.issues[0]) }];
      const { scenario, createdAt, repeats, libraries } = checked.data;
      const library = (l: NcclAbSummary['libraries']['A']) => ({ path: l.path, version: l.version });
      return [{ ok: true, path, scenario, createdAt, repeats, libraries: { A: library(libraries.A), B: library(libraries.B) } }];
    } catch (e) {
      return [{ ok: false, path, problem: `${name}: ${(e as Error).message.replaceAll(path, name)}` }];
    }
  });
}
