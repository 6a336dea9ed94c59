// The cpu backend's shared-memory segments as files. createUniqueId names one "/clab-<pid>-<hex>"
// (native/cpu/shm_segment.cc), pid being the process that made it; on Linux that is the file
// /dev/shm/clab-<pid>-<hex>. The name carries its maker so that whoever outlives the maker (the
// core, its rank killed outright) can find what it left.
import { readdirSync, rmSync } from 'node:fs';

/** Where POSIX shared-memory names live on Linux. */
const SHM_DIR = '/dev/shm';
const CPU_SEGMENT = /^\/clab-(\d+)-[0-9a-f]+$/;

/** Whether `id`, a communicator id, names a cpu segment. */
export const isCpuSegment = (id: string): boolean => CPU_SEGMENT.test(id);

/** Removes the name of the cpu segment `id` (its memory stays while any process has it mapped). */
export function removeCpuSegment(id: string): void {
  rmSync(`${SHM_DIR}${id}`, { force: true });
}

/** Removes the names of every cpu segment process `pid` made that are still there. */
export function removeCpuSegmentsOf(pid: number): void {
  let files: string[];
  try {
    files = readdirSync(SHM_DIR);
  } catch {
    return; // no /dev/shm: no cpu segment either
  }
  for (const file of files) if (CPU_SEGMENT.exec(`/${file}`)?.[1] === String(pid)) removeCpuSegment(`/${file}`);
}
