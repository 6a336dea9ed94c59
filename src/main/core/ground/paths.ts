// Where the bundled rank process lives: next to this bundle (dist/), or in the package's dist/
// when the core runs from elsewhere (the Electron build in out/, the sources under tests): the
// package's root found as package-root.ts finds it, however deep the code lies.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findPackageRoot } from './package-root.js';

export function workerEntryCandidates(baseDir: string): string[] {
  let packaged: string[];
  try {
    packaged = [join(findPackageRoot(baseDir), 'dist', 'worker.cjs')];
  } catch {
    packaged = []; // no package above: only the places named here
  }
  return [...(process.env.CLAB_WORKER_ENTRY ? [process.env.CLAB_WORKER_ENTRY] : []), join(baseDir, 'worker.cjs'), ...packaged];
}

export function resolveWorkerEntry(baseDir: string = __dirname): string {
  const candidates = workerEntryCandidates(baseDir);
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`the rank process bundle was not found (looked in ${candidates.join(', ')}); run \`npm run build\``);
  return found;
}
