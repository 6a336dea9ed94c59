// Which run files a window may open through the lab service, and how a run file is named to it.
import { realpathSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { isRunRecordFile } from '../../../shared/run/record/record-text.js';
import { readCappedText } from '../ground/read-capped.js';

/**
 * A run file a window may open: saved in the runs directory, or one of the user's files (opened
 * through the app). `opensFiles`: whether the door can open files at all (it says so when refused).
 */
export function runFileIn(runsDir: string, path: string, userFiles: ReadonlySet<string>, opensFiles: boolean): string {
  const file = resolve(runsDir, path);
  if (!userFiles.has(file) && !isInside(realPathOf(file), realPathOf(runsDir))) {
    throw new Error(
      `openRun: ${path} is outside the runs directory ${runsDir}; only runs saved there${opensFiles ? ' or files opened through the app' : ''} can be opened`,
    );
  }
  return file;
}

/**
 * What is said of a run file goes to a window's notice: it names the file relative to the runs
 * folder, or by its name where it lies elsewhere (a file the user opened), not by its absolute path.
 */
export async function namingFile<T>(runsDir: string, file: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (e) {
    const shown = isInside(file, runsDir) ? relative(runsDir, file) : basename(file);
    const error = e as Error & { code?: string };
    throw Object.assign(new Error(error.message.replaceAll(file, shown), { cause: e }), error.code ? { code: error.code } : {});
  }
}

/** Whether the file is meant to be a run record: named *.run.json, or its first bytes hold `"format": "clab.run"`. */
export function looksLikeRunRecord(file: string): boolean {
  try {
    return isRunRecordFile(file, readCappedText(file, { maxBytes: 4096, regularOnly: true, head: true }));
  } catch {
    return false;
  }
}

/** Symlinks resolved, so a link inside the runs directory cannot point outside it. */
function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function isInside(file: string, dir: string): boolean {
  const rel = relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}
