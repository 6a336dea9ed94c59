// A test's folders in the temp folder, removed once its file's tests are done (after the file's own
// afterAll hooks, which end what may still write there). In setupFiles, so that every file removes
// what it made; test/setup/temp-folder.ts fails a run that leaves anything.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

/** A fresh folder `clab-<name>-XXXXXX` in the temp folder, removed with its contents after this file's tests. */
export function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `clab-${name}-`));
  made.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
