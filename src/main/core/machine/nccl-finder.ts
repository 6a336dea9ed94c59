// Every NCCL library on this machine that `clab doctor` can name: the system's (ldconfig's cache
// and the usual library folders), a PyTorch wheel's (site-packages/nvidia/nccl/lib), and the one a
// run would be told to load (--nccl, CLAB_NCCL_LIBRARY). Each one's version is read from the
// banner NCCL builds into its file ("NCCL version 2.28.3+cuda13.0"), so no library is loaded and
// no GPU is needed. Where to look is a parameter (NcclSearch): tests point it at a folder of their own.
import { execFileSync } from 'node:child_process';
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { homedir } from 'node:os';
import { findNcclBanner, NCCL_BANNER_MAX_CHARS, type NcclBanner } from '../../../shared/run/nccl/nccl-library.js';
import { NCCL_HASH_MAX_BYTES } from './nccl-library.js';

export type NcclOrigin = 'system' | 'pytorch' | 'option' | 'env';

export interface NcclSearch {
  /** `ldconfig -p`'s output; null where it could not be had. */
  ldconfig: string | null;
  /** Folders that may hold libnccl.so* (the system's usual ones, LD_LIBRARY_PATH's). */
  libDirs: readonly string[];
  /** Python site-packages folders, where a PyTorch wheel puts nvidia/nccl/lib/libnccl.so.2. */
  siteDirs: readonly string[];
  /** What a run would be told to load. */
  named: readonly { path: string; origin: 'option' | 'env' }[];
}

export interface FoundNccl {
  /** The path as found (libnccl.so.2 rather than the file it links to, where there is one). */
  path: string;
  /** The file itself, links resolved; null where there is none. */
  file: string | null;
  /** Where it was found, each place once, in the order searched. */
  origins: NcclOrigin[];
  banner: NcclBanner | null;
  /** Why it has no version: no such file, not readable, no banner in it. */
  problem?: string;
}

const NCCL_FILE = /^libnccl\.so(\.\d+)*$/;

/** The libnccl paths in `ldconfig -p`'s output ("\tlibnccl.so.2 (libc6,x86-64) => /usr/lib/…/libnccl.so.2"). */
export function ldconfigNcclPaths(text: string): string[] {
  const paths: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\S+)\s.*=>\s*(\S.*?)\s*$/.exec(line);
    if (m && NCCL_FILE.test(m[1])) paths.push(m[2]);
  }
  return paths;
}

/** The sections of an ELF64 little-endian file whose name starts `.rodata`: where NCCL's banner lies. */
async function rodataRanges(path: string): Promise<{ offset: number; size: number }[]> {
  const f = await open(path, 'r');
  try {
    const head = Buffer.alloc(64);
    const { bytesRead } = await f.read(head, 0, 64, 0);
    if (bytesRead < 64 || head.readUInt32BE(0) !== 0x7f454c46 || head[4] !== 2 || head[5] !== 1) return [];
    const shoff = Number(head.readBigUInt64LE(0x28));
    const shentsize = head.readUInt16LE(0x3a);
    const shnum = head.readUInt16LE(0x3c);
    const shstrndx = head.readUInt16LE(0x3e);
    if (shentsize < 64 || shnum === 0 || shnum > 4096 || shstrndx >= shnum) return [];
    const table = Buffer.alloc(shentsize * shnum);
    if ((await f.read(table, 0, table.length, shoff)).bytesRead < table.length) return [];
    const section = (i: number) => ({
      name: table.readUInt32LE(i * shentsize),
      offset: Number(table.readBigUInt64LE(i * shentsize + 24)),
      size: Number(table.readBigUInt64LE(i * shentsize + 32)),
    });
    const strtab = section(shstrndx);
    const names = Buffer.alloc(Math.min(strtab.size, 1 << 20));
    await f.read(names, 0, names.length, strtab.offset);
    const ranges = [];
    for (let i = 0; i < shnum; i++) {
      const s = section(i);
      const end = names.indexOf(0, s.name);
      if (names.toString('latin1', s.name, end === -1 ? names.length : end).startsWith('.rodata'))
        ranges.push({ offset: s.offset, size: s.size });
    }
    return ranges;
  } finally {
    await f.close();
  }
}

/** The first banner in bytes [offset, offset + size) of the file, read 1 MiB at a time. */
async function scanForBanner(path: string, offset: number, size: number): Promise<NcclBanner | null> {
  const f = await open(path, 'r');
  try {
    const chunk = Buffer.alloc(1 << 20);
    let carry = '';
    for (let at = offset; at < offset + size;) {
      const { bytesRead } = await f.read(chunk, 0, Math.min(chunk.length, offset + size - at), at);
      if (bytesRead === 0) break;
      at += bytesRead;
      const text = carry + chunk.toString('latin1', 0, bytesRead);
      const found = findNcclBanner(text);
      // One that reaches the chunk's end may be cut there ("+cuda12.1" of "+cuda12.10"): it is read
      // whole with the next chunk, which starts with this one's last NCCL_BANNER_MAX_CHARS.
      if (found && (found.end < text.length || at >= offset + size)) return found.banner;
      carry = text.slice(-NCCL_BANNER_MAX_CHARS);
    }
    return null;
  } finally {
    await f.close();
  }
}

/**
 * The version banner in a library file, without loading it: in its .rodata sections where it is
 * an ELF file (a few MiB of some 300), else anywhere in its first `maxBytes`.
 */
export async function readNcclBanner(path: string, maxBytes = NCCL_HASH_MAX_BYTES): Promise<NcclBanner | null> {
  for (const r of await rodataRanges(path)) {
    const banner = await scanForBanner(path, r.offset, r.size);
    if (banner) return banner;
  }
  return scanForBanner(path, 0, Math.min(statSync(path).size, maxBytes));
}

function realFile(path: string): string | null {
  try {
    return statSync(path).isFile() ? realpathSync(path) : null;
  } catch {
    return null;
  }
}

/** libnccl files in `dir`, one path per file (libnccl.so.2 over libnccl.so and libnccl.so.2.28.3, which link to it or it to them). */
function ncclFilesIn(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => NCCL_FILE.test(n));
  } catch {
    return [];
  }
  const rank = (n: string) => (n === 'libnccl.so.2' ? 0 : n === 'libnccl.so' ? 2 : 1);
  return names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).map((n) => join(dir, n));
}

/** Every NCCL the search finds, one entry per file, each with its version read from the file. */
export async function findNcclLibraries(search: NcclSearch): Promise<FoundNccl[]> {
  const candidates: { path: string; origin: NcclOrigin }[] = [
    ...(search.ldconfig ? ldconfigNcclPaths(search.ldconfig) : []).map((path) => ({ path, origin: 'system' as const })),
    ...search.libDirs.flatMap(ncclFilesIn).map((path) => ({ path, origin: 'system' as const })),
    ...search.siteDirs.map((d) => ({ path: join(d, 'nvidia', 'nccl', 'lib', 'libnccl.so.2'), origin: 'pytorch' as const })),
    ...search.named,
  ];
  const found: FoundNccl[] = [];
  for (const { path, origin } of candidates) {
    const file = realFile(path);
    // A PyTorch folder without NCCL is no finding; a name the user gave is, even when it is wrong.
    if (!file && origin !== 'option' && origin !== 'env') continue;
    const same = found.find((f) => (file ? f.file === file : f.path === path));
    if (same) {
      if (!same.origins.includes(origin)) same.origins.push(origin);
      continue;
    }
    found.push({ path, file, origins: [origin], banner: null });
  }
  for (const f of found) {
    if (!f.file) {
      f.problem = 'no such file';
      continue;
    }
    try {
      f.banner = await readNcclBanner(f.file);
      if (!f.banner) f.problem = 'no "NCCL version" string in it: not an NCCL library?';
    } catch (e) {
      f.problem = (e as Error).message;
    }
  }
  return found;
}

/** A command's standard output, or null where it cannot be run within `timeoutMs`. */
function outputOf(command: string, args: string[], timeoutMs: number): string | null {
  try {
    return execFileSync(command, args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 4 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
}

/** Folders named python3.* under `dir`, each with `tail` appended. */
function pythonDirs(dir: string, tail: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => /^python3(\.\d+)?$/.test(n))
      .map((n) => join(dir, n, tail));
  } catch {
    return [];
  }
}

const USUAL_LIB_DIRS = [
  '/usr/lib/x86_64-linux-gnu',
  '/usr/lib/aarch64-linux-gnu',
  '/usr/lib64',
  '/usr/lib',
  '/usr/local/lib',
  '/usr/local/cuda/lib64',
  '/usr/local/nccl/lib',
  '/opt/nccl/lib',
];

/**
 * Where this machine keeps NCCL: ldconfig's cache, the usual folders and LD_LIBRARY_PATH's, and
 * python3's site-packages (asked of python3 itself, in 5 s at most, and the usual folders besides).
 */
export function machineNcclSearch(named: NcclSearch['named'], env: NodeJS.ProcessEnv = process.env): NcclSearch {
  const sites = outputOf('python3', ['-c', 'import site; print("\\n".join(site.getsitepackages() + [site.getusersitepackages()]))'], 5000);
  const siteDirs = [
    ...(sites ?? '').split('\n').filter((l) => l.startsWith('/')),
    ...['/usr/lib', '/usr/local/lib', join(homedir(), '.local', 'lib')].flatMap((d) => [
      ...pythonDirs(d, 'site-packages'),
      ...pythonDirs(d, 'dist-packages'),
    ]),
  ];
  return {
    ldconfig: outputOf('ldconfig', ['-p'], 3000) ?? outputOf('/sbin/ldconfig', ['-p'], 3000),
    libDirs: [...(env.LD_LIBRARY_PATH ?? '').split(delimiter).filter(Boolean), ...USUAL_LIB_DIRS],
    siteDirs: [...new Set(siteDirs)],
    named,
  };
}
