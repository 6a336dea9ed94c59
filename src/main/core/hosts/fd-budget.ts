// How many more sockets this process can open before accept fails with EMFILE. libuv hides that
// failure (it accepts and closes the connection with a descriptor it keeps in reserve, and Node
// hears nothing), so the listener counts its own sockets against the descriptors free when it
// began to listen. Linux only (/proc); elsewhere it knows nothing and says nothing.
import { readdirSync, readFileSync } from 'node:fs';

/** The soft limit on open files, from /proc/self/limits; null where it cannot be read. */
export function openFileLimit(limits = '/proc/self/limits'): number | null {
  try {
    const line = readFileSync(limits, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft && /^\d+$/.test(soft) ? Number(soft) : null;
  } catch {
    return null;
  }
}

/** Descriptors this process has open now; null where /proc is not there. */
export function openFiles(fds = '/proc/self/fd'): number | null {
  try {
    return readdirSync(fds).length;
  } catch {
    return null;
  }
}

/** Descriptors free now (limit − open), or null. */
export function freeDescriptors(): number | null {
  const limit = openFileLimit();
  const open = openFiles();
  return limit === null || open === null ? null : limit - open;
}
