// Writes a whole file or nothing: a reader (or a crash) never sees half of it.
import { accessSync, constants, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * Creates the missing directories of `dir` one level at a time. (Node's recursive mkdirSync spins
 * for ever under /proc, where mkdir fails with ENOENT at every level.)
 */
function makeDirectories(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) {
    missing.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing.reverse()) mkdirSync(d);
}

export function writeFileAtomic(file: string, text: string): void {
  makeDirectories(dirname(file));
  const tmp = join(dirname(file), `.${process.pid}.${Date.now()}.tmp`);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Throws, with the reason in words, when `file` could not be written: checked before work whose
 * result goes there starts, so that nothing is measured only to be lost at the end. Creates the
 * directories it needs, as the write would.
 */
export function checkWritable(file: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(file).isDirectory();
  } catch {
    // Not there yet: its directory decides.
  }
  if (isDirectory) throw new Error(`${file} is a directory; expected a file to write`);
  const dir = dirname(file);
  try {
    makeDirectories(dir);
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error(`${dir} is not a directory`), { code: 'ENOTDIR' });
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw new Error(`cannot write ${file}: ${(e as Error).message}`);
  }
}
