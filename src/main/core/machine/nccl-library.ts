// Which NCCL a run's ranks load, checked before anything runs, and described once per run for its
// record: the file, the version NCCL itself reports (ncclGetVersion, through the addon, which loads
// the very file the ranks load) and the SHA-256 of its bytes, hashed here, not in every rank.
import { createHash } from 'node:crypto';
import { createReadStream, realpathSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { ncclVersionText } from '../../../shared/run/nccl/comm-settings.js';
import type { NcclLibraryRecord, NcclLibrarySource } from '../../../shared/run/nccl/nccl-library.js';
import type { NativeAddon } from '../../../addon/native-api.js';
import { loadAddon } from '../../../addon/addon.js';

export class NcclLibraryError extends Error {
  readonly code = 'CLAB_NCCL_LIBRARY';
}

/**
 * `path` resolved against the working folder, once it names an existing regular file (a link to
 * one will do: libnccl.so.2 usually is one); else NcclLibraryError naming it and `named`, the
 * option or variable that gave it.
 */
export function checkNcclLibraryPath(path: string, named: string): string {
  const file = resolve(path);
  let kind: string;
  try {
    const st = statSync(file);
    // Only a file named as NCCL's library is: the path may come from a client of `clab serve`, and
    // any other shared object would be loaded into every rank just the same.
    if (st.isFile() && ![file, realpathSync(file)].some((f) => NCCL_LIBRARY_NAME.test(basename(f))))
      throw new NcclLibraryError(
        `${named} ${JSON.stringify(path)}: not named as NCCL's library is; expected a file named libnccl….so… (libnccl.so.2, libnccl.so.2.30.7)`,
      );
    if (st.isFile()) return file;
    kind = st.isDirectory() ? 'a directory' : 'not a regular file';
  } catch (e) {
    if (e instanceof NcclLibraryError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    kind = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
  }
  throw new NcclLibraryError(`${named} ${JSON.stringify(path)}: ${kind}; expected an NCCL library file (libnccl.so.2)`);
}

/** How NCCL's library files are named: libnccl.so, libnccl.so.2, libnccl.so.2.30.7, libnccl-net….so is not one. */
export const NCCL_LIBRARY_NAME = /^libnccl\.so(\.\d+)*$/;

/** The most a library file is hashed to: NCCL for CUDA 12 with every GPU architecture is some 300 MiB. */
export const NCCL_HASH_MAX_BYTES = 2 * 2 ** 30;

/** SHA-256 of a file, hex, read as a stream (never held whole), of at most `maxBytes`; else why not. */
export async function sha256File(path: string, maxBytes = NCCL_HASH_MAX_BYTES): Promise<{ sha256: string } | { problem: string }> {
  try {
    const size = statSync(path).size;
    if (size > maxBytes) return { problem: `${size} bytes, more than the ${maxBytes} hashed` };
    const hash = createHash('sha256');
    let read = 0;
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
      read += (chunk as Buffer).length;
      // A file that grows while it is read is not the library that was loaded either.
      if (read > maxBytes) return { problem: `grew past ${maxBytes} bytes while it was read` };
      hash.update(chunk as Buffer);
    }
    return { sha256: hash.digest('hex') };
  } catch (e) {
    return { problem: (e as Error).message };
  }
}

export interface NcclChoice {
  /** The file named; null: the loader's search for libnccl.so.2. */
  path: string | null;
  chosenBy: NcclLibrarySource;
}

/** Which NCCL the ranks load: the run's own (--nccl, already checked) over CLAB_NCCL_LIBRARY in their environment over the loader's. */
export function ncclChoice(option: string | undefined, rankEnv: NodeJS.ProcessEnv): NcclChoice {
  if (option) return { path: option, chosenBy: 'option' };
  const env = rankEnv.CLAB_NCCL_LIBRARY;
  return env ? { path: env, chosenBy: 'env' } : { path: null, chosenBy: 'loader' };
}

/**
 * The record's ncclLibrary: the file the addon loads for `choice` (the ranks' loader does the same
 * with the same name), its ncclGetVersion, and its hash. Where the addon cannot load it the run's
 * ranks fail to, and say why; the record keeps the file named, unversioned. null: none named and
 * the loader finds none.
 */
export async function describeNcclLibrary(
  choice: NcclChoice,
  addon?: Pick<NativeAddon, 'ncclLibraryVersion'>,
): Promise<NcclLibraryRecord | null> {
  let loaded: { path: string; version: number } | null = null;
  try {
    loaded = (addon ?? loadAddon()).ncclLibraryVersion(choice.path ? { path: choice.path } : {});
  } catch {
    if (!choice.path) return null;
  }
  const named = loaded?.path ?? choice.path!;
  let path = named;
  try {
    path = realpathSync(named);
  } catch {
    // a bare soname the loader found nowhere readable: kept as named
  }
  const hashed = await sha256File(path);
  return {
    path,
    version: loaded ? ncclVersionText(loaded.version) : null,
    sha256: 'sha256' in hashed ? hashed.sha256 : null,
    ...('problem' in hashed ? { hashProblem: hashed.problem } : {}),
    chosenBy: choice.chosenBy,
  };
}
