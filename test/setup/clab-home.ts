// Every test process, and every clab process a test starts, writes what clab keeps under
// CLAB_HOME (its packed runs, its runs' tokens) into a folder of its own, removed at the end:
// tests write no file of the user's home.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  // Run by each project of vitest.config.ts: the first one makes the folder (temp-folder.ts says why).
  if (process.env.CLAB_TEST_HOME) return () => undefined;
  const home = mkdtempSync(join(tmpdir(), 'clab-test-home-'));
  process.env.CLAB_HOME = home;
  process.env.CLAB_TEST_HOME = home;
  return () => {
    rmSync(home, { recursive: true, force: true });
    delete process.env.CLAB_TEST_HOME;
  };
}
