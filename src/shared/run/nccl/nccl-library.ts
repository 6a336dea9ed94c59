// The NCCL library a run loaded, as its record keeps it, and the version string NCCL builds into
// its own file ("NCCL version 2.28.3+cuda13.0": NCCL's init.cc keeps it whole so that `strings` on
// the library shows it), which tells a library's version without loading it.
import { z } from 'zod';

/** How the library was chosen: `clab run --nccl` (or a run request's `nccl`), CLAB_NCCL_LIBRARY, or the loader's search for libnccl.so.2. */
export const ncclLibrarySourceSchema = z.enum(['option', 'env', 'loader']);

export const ncclLibrarySchema = z.object({
  /** The file the library was loaded from, links resolved. */
  path: z.string(),
  /** ncclGetVersion's, as text (2.28.3); null where the core could not load it to ask. */
  version: z.string().nullable(),
  /** SHA-256 of the file, hex; null where it could not be read whole (hashProblem says why). */
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  hashProblem: z.string().optional(),
  chosenBy: ncclLibrarySourceSchema,
});

export type NcclLibraryRecord = z.infer<typeof ncclLibrarySchema>;
export type NcclLibrarySource = z.infer<typeof ncclLibrarySourceSchema>;

/** The banner NCCL builds into its file: "NCCL version 2.28.3+cuda13.0" (a suffix such as "a1" may follow the patch). */
const BANNER = /NCCL version (\d{1,2})\.(\d{1,3})\.(\d{1,3})([A-Za-z0-9_.-]{0,16})\+cuda(\d{1,3})\.(\d{1,3})/;
/** The most a banner takes (what a reader of a file in chunks keeps from one chunk for the next). */
export const NCCL_BANNER_MAX_CHARS = 80;

export interface NcclBanner {
  /** "2.28.3" (with NCCL's suffix, if any: "2.31.0a7"). */
  version: string;
  /** NCCL's version code (2.28.3 → 22803). */
  code: number;
  /** The CUDA it was built for: "13.0". */
  cuda: string;
}

/** The first NCCL version banner in `text` (latin1 of a library's bytes) and where it ends, or null. */
export function findNcclBanner(text: string): { banner: NcclBanner; end: number } | null {
  const m = BANNER.exec(text);
  if (!m) return null;
  const [major, minor, patch] = [m[1], m[2], m[3]].map(Number);
  return {
    banner: { version: `${major}.${minor}.${patch}${m[4]}`, code: major * 10000 + minor * 100 + patch, cuda: `${m[5]}.${m[6]}` },
    end: m.index + m[0].length,
  };
}

const WHO: Record<NcclLibrarySource, string> = { option: '--nccl', env: 'CLAB_NCCL_LIBRARY', loader: "the loader's libnccl.so.2" };

/** "NCCL 2.28.3 from /usr/lib/…/libnccl.so.2.28.3 (sha256 0123456789ab…, chosen by --nccl)". */
export function ncclLibraryText(lib: NcclLibraryRecord): string {
  const hash = lib.sha256 ? `sha256 ${lib.sha256.slice(0, 12)}…` : `no sha256: ${lib.hashProblem ?? 'not read'}`;
  return `NCCL ${lib.version ?? '(version unknown)'} from ${lib.path} (${hash}, chosen by ${WHO[lib.chosenBy]})`;
}
