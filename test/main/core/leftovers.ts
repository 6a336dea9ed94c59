// What a run may leave behind: its rank processes and the cpu backend's /dev/shm segments.
import { existsSync, readdirSync } from 'node:fs';

/** Whether a process is still there (signal 0 only asks). */
export const alive = (pid: number | undefined): boolean => {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The cpu backend's shared-memory segments now on this machine (named clab-…-PID-…). */
export const shmSegments = (): string[] => (existsSync('/dev/shm') ? readdirSync('/dev/shm').filter((f) => f.startsWith('clab-')) : []);
