// The system temp folder stays as the run found it. Every test process, and every process a test
// starts, gets a temp folder of the run's own (TMPDIR, which os.tmpdir() reads), so that no other
// run on the machine is counted against this one and nothing outlives the run. Anything named
// clab-… still in it at the end fails the run, each path named: a test removes what it makes
// (test/setup/temp-dirs.ts). Listed first in globalSetup: set up before, torn down after the rest.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  // Each project of vitest.config.ts (and the root config) runs the global setup, in the order its
  // files come up, and tears it down in another: the first one makes the folder for the whole run.
  if (process.env.CLAB_TEST_TMPDIR) return () => undefined;
  const systemTemp = process.env.TMPDIR;
  const runTemp = mkdtempSync(join(tmpdir(), 'clab-test-tmp-'));
  process.env.TMPDIR = runTemp;
  process.env.CLAB_TEST_TMPDIR = runTemp;
  return () => {
    delete process.env.CLAB_TEST_TMPDIR;
    const left = readdirSync(runTemp)
      .filter((name) => name.startsWith('clab-'))
      .map((name) => join(runTemp, name));
    rmSync(runTemp, { recursive: true, force: true });
    if (systemTemp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = systemTemp;
    if (left.length === 0) return;
    process.stderr.write(
      `\nThe tests left ${left.length} thing${left.length === 1 ? '' : 's'} in the temp folder (each test removes what it makes; removed now):\n${left.map((p) => `  ${p}\n`).join('')}`,
    );
    process.exitCode = 1;
  };
}
