// Where the bundled rank process lives: next to this bundle (dist/), or in the package's dist/
// when the core runs from elsewhere (the Electron build in out/, the sources under tests, which
// are in src/main/core/ground/: four floors down).
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export function workerEntryCandidates(baseDir: string): string[] {
  return [
    ...(process.env.CLAB_WORKER_ENTRY ? [process.env.CLAB_WORKER_ENTRY] : []),
    join(baseDir, 'worker.cjs'),
    join(baseDir, '..', '..', 'dist', 'worker.cjs'),
    join(baseDir, '..', '..', '..', 'dist', 'worker.cjs'),
    join(baseDir, '..', '..', '..', '..', 'dist', 'worker.cjs'),
  ];
}

export function resolveWorkerEntry(baseDir: string = __dirname): string {
  const candidates = workerEntryCandidates(baseDir);
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`the rank process bundle was not found (looked in ${candidates.join(', ')}); run \`npm run build\``);
  return found;
}
