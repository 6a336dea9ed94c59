// The browser tests drive a real Chromium (playwright-core never downloads one). Before they run:
// use CLAB_CHROMIUM or Debian's /usr/bin/chromium when there; else install Debian's package when
// apt-get and root are at hand; else say in one line what to do. Exit status 0 when a browser is
// ready, 1 when not.
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

const wanted = process.env.CLAB_CHROMIUM ?? '/usr/bin/chromium';
const runnable = (file) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

if (runnable(wanted)) process.exit(0);
if (process.env.CLAB_CHROMIUM) {
  console.error(`test:e2e: CLAB_CHROMIUM=${wanted} is not an executable file`);
  process.exit(1);
}
const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
const isRoot = process.getuid?.() === 0;
if (!hasApt || !isRoot) {
  console.error(
    `test:e2e: no Chromium at ${wanted}: install it (Debian/Ubuntu: sudo apt-get install -y chromium) or set CLAB_CHROMIUM=/path/to/chrome`,
  );
  process.exit(1);
}
console.error("test:e2e: installing Debian's chromium for the browser tests (apt-get install -y chromium)…");
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
try {
  execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: ['ignore', 'ignore', 'inherit'], env });
} catch (e) {
  console.error(`test:e2e: installing chromium failed (${e.message}); install it yourself or set CLAB_CHROMIUM`);
  process.exit(1);
}
process.exit(runnable(wanted) ? 0 : 1);
