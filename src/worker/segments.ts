// The cpu backend's shared-memory segments this rank created (as a communicator's rank 0, or a
// pair's sender). The last rank to attach removes a segment's name; until then, a rank that ends
// early (its core killed during start-up, a signal) removes the names it created itself, so that
// nothing is left in /dev/shm for the next run to sweep. A rank killed outright runs none of this:
// its core removes what it made once it is gone (core/run/workers.ts).
import { isCpuSegment, removeCpuSegment } from '../addon/cpu-segments.js';
import type { NativeAddon } from '../addon/native-api.js';

class CreatedSegments {
  private readonly names = new Set<string>();

  /** The addon, its createUniqueId remembering every cpu segment it made. */
  track(addon: NativeAddon): NativeAddon {
    const createUniqueId: NativeAddon['createUniqueId'] = (o) => {
      const id = addon.createUniqueId(o);
      if (isCpuSegment(id)) this.names.add(id);
      return id;
    };
    return Object.create(addon, { createUniqueId: { value: createUniqueId } }) as NativeAddon;
  }

  /** Removes the names this rank created (those every rank attached to are gone already). */
  remove(): void {
    for (const name of this.names) removeCpuSegment(name);
    this.names.clear();
  }
}

export const createdSegments = new CreatedSegments();

// Every way out but the normal end (exitNow, by then every rank attached): exit() after the core
// went away or told the rank to abort, and the signals a terminal or a service manager sends.
process.on('exit', () => createdSegments.remove());
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    createdSegments.remove();
    process.kill(process.pid, signal);
  });
}
