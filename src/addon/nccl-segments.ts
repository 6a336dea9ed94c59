// NCCL's shared-memory segments as files: /dev/shm/nccl-XXXXXX, made with mkstemp (its proxy's
// pool of operations shared between the ranks of one host, among others). They lose their names
// when NCCL destroys its communicator. A rank that is done skips that (ncclCommDestroy is slow:
// native NcclComm::close) and ends at once (exitNow), and a rank killed outright never gets to it,
// so their names stayed in /dev/shm: 6 after 12 runs on 2 × H200, 60 after the GPU suite and a
// bench (NCCL 2.28.3, 2026-11-28). The names carry no maker, so a process's are read from its
// memory map: a rank that is done removes those it maps before it ends (worker/main.ts), and the
// core reads a rank's before it kills it and removes them once it is gone (core/run/workers.ts).
// Either happens only once every rank is done or the run is being ended, so no peer is left to
// open one; the memory itself stays mapped until the last process that maps it ends.
import { readFileSync, unlinkSync } from 'node:fs';

/** A segment of NCCL's as mkstemp names it (ncclShmOpen): six letters or digits after "nccl-". */
const NCCL_SEGMENT = /^\/dev\/shm\/nccl-[A-Za-z0-9]{6}$/;
/** Where a maps line names one: its path, the last field (one whose name is gone ends " (deleted)"). */
const MAPPED = '/dev/shm/nccl-';

/** The NCCL segments a /proc/<pid>/maps text names that still have their name (not "(deleted)"), each once. */
export function ncclSegmentsMapped(maps: string): string[] {
  const names = new Set<string>();
  for (const line of maps.split('\n')) {
    const at = line.indexOf(MAPPED);
    if (at < 0) continue;
    const path = line.slice(at).trimEnd();
    if (NCCL_SEGMENT.test(path)) names.add(path);
  }
  return [...names];
}

/** The NCCL segments process `pid` (or this one) maps that still have their name; none where its map cannot be read (not Linux, the process gone). */
export function ncclSegmentsOf(pid: number | 'self', read: (path: string) => string = (p) => readFileSync(p, 'utf8')): string[] {
  try {
    return ncclSegmentsMapped(read(`/proc/${pid}/maps`));
  } catch {
    return [];
  }
}

/** Removes the names `names` (ncclSegmentsOf), and says how many it removed; one removed first by another rank of the run is passed over. */
export function removeNcclSegments(names: readonly string[], unlink: (path: string) => void = unlinkSync): number {
  let removed = 0;
  for (const name of names) {
    if (!NCCL_SEGMENT.test(name)) continue;
    try {
      unlink(name);
      removed++;
    } catch {
      // gone already
    }
  }
  return removed;
}
