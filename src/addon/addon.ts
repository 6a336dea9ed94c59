// Finds and loads the native addon. Searched next to the bundle (a carried build), in the
// package's build folder, or where CLAB_NATIVE_ADDON points.
import { existsSync } from 'node:fs';
import type { NativeAddon } from './native-api.js';
import { withProfilerRecords, type RawAddon } from './profile-records.js';
import { ADDON, addonCandidates } from '../../bin/addon-path.cjs';

export { addonCandidates };

/** Where the addon is (the first candidate that exists); throws CLAB_NO_ADDON where none does. */
export function findAddon(baseDir: string = __dirname): string {
  const candidates = addonCandidates(baseDir);
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw Object.assign(
      new Error(`the native addon ${ADDON} was not found (looked in ${candidates.join(', ')}); build it with \`npm run build:native\``),
      { code: 'CLAB_NO_ADDON' },
    );
  }
  return found;
}

export function loadAddon(baseDir: string = __dirname): NativeAddon {
  // A compiled addon is loaded by path, which only require does.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return withProfilerRecords(require(findAddon(baseDir)) as RawAddon);
}
