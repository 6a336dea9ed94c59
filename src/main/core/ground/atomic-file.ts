// Writes a whole file or nothing: a reader (or a crash) never sees half of it. Only regular files
// are written: a device node, a symlink, a FIFO or a directory at the path is refused, never
// replaced (as root, `--out /dev/null` would otherwise replace the machine's own node).
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
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

/** What stands at a path that is not a regular file, in words ("a character device"). */
export function fileKind(s: Stats): string {
  if (s.isFile()) return 'a regular file';
  if (s.isDirectory()) return 'a directory';
  if (s.isSymbolicLink()) return 'a symbolic link';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isFIFO()) return 'a FIFO (named pipe)';
  if (s.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Throws when something other than a regular file stands at `file` (nothing there is fine). */
function refuseNonRegular(file: string): void {
  let s: Stats;
  try {
    s = lstatSync(file);
  } catch {
    return; // not there yet: a new file
  }
  if (!s.isFile())
    throw new Error(
      `${file} is ${fileKind(s)}; expected a file to write (clab writes only regular files, or a new one, and leaves what stands there as it is)`,
    );
}

/** `.<pid>.<ms>.tmp`: the temp files writeFileAtomic makes beside their target. */
const TEMP_NAME = /^\.(\d+)\.\d+(?:\.[0-9a-f]+)?\.tmp$/;
/** When this process last looked for stale temp files in each directory: at most once a minute (a checkpoint writes once a second). */
const swept = new Map<string, number>();
const SWEEP_INTERVAL_MS = 60_000;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Removes the temp files that processes now gone left in `dir` (killed during a rewrite), as the
 * cpu backend removes the shared-memory segments of dead processes.
 */
export function removeStaleTempFiles(dir: string): void {
  const key = resolve(dir);
  const now = Date.now();
  if (now - (swept.get(key) ?? -Infinity) < SWEEP_INTERVAL_MS) return;
  swept.set(key, now);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(TEMP_NAME.exec(name)?.[1] ?? 0);
    if (!pid || pid === process.pid || alive(pid)) continue;
    try {
      if (lstatSync(join(dir, name)).isFile()) rmSync(join(dir, name), { force: true });
    } catch {
      // gone already, or not ours to remove
    }
  }
}

/** Writes all of `bytes` (a write may take fewer than it was given). */
function writeAll(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
}

export function writeFileAtomic(file: string, text: string): void {
  writeFileAtomicChunks(file, (write) => write(text));
}

/** As writeFileAtomic, the text (or bytes) handed over a chunk at a time (a large export never held whole). */
export function writeFileAtomicChunks(file: string, produce: (write: (chunk: string | Uint8Array) => void) => void): void {
  if (file === '') throw new Error('an empty path; expected a file to write');
  makeDirectories(dirname(file));
  refuseNonRegular(file);
  removeStaleTempFiles(dirname(file));
  const tmp = join(dirname(file), `.${process.pid}.${Date.now()}.${randomBytes(2).toString('hex')}.tmp`);
  try {
    const fd = openSync(tmp, 'wx');
    try {
      produce((chunk) => writeAll(fd, typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk));
    } finally {
      closeSync(fd);
    }
    refuseNonRegular(file);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Throws, with the reason in words, when `file` could not be written: checked before work whose
 * result goes there starts, so that nothing is measured only to be lost at the end. Creates the
 * directories it needs, as the write would, and creates (then removes) a file beside it: /proc
 * and /sys take no new files, whatever their permissions say.
 */
export function checkWritable(file: string): void {
  if (file === '') throw new Error('an empty path; expected a file to write');
  refuseNonRegular(file);
  const dir = dirname(file);
  try {
    makeDirectories(dir);
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error(`${dir} is not a directory`), { code: 'ENOTDIR' });
    accessSync(dir, constants.W_OK);
    const probe = join(dir, `.${process.pid}.${Date.now()}.${randomBytes(2).toString('hex')}.tmp`);
    closeSync(openSync(probe, 'wx'));
    rmSync(probe, { force: true });
  } catch (e) {
    throw new Error(`cannot write ${file}: ${(e as Error).message}`, { cause: e });
  }
}
