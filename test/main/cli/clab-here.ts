// `clab` run inside the test's own process: the built bundle's main(), as bin/clab.cjs calls it,
// with what it writes to stdout and stderr caught and its exit status read back. Starting node and
// loading the bundle for each call costs far more than most commands do; tests that check what a
// command prints call it here, and a few in each file still start the real process.
// Only for commands that start no process and wait for no signal (explain, validate, export,
// compare, replay); a file that uses it keeps a process of its own (vitest.config.ts).
import { createRequire } from 'node:module';

interface Bundle {
  main(argv: string[]): Promise<void>;
  visibleControls(text: string): string;
}

const bundle = createRequire(import.meta.url)('../../../dist/cli.cjs') as Bundle;

export interface ClabResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs `clab ARGS` here; one call at a time (it takes over process.stdout and process.stderr meanwhile). */
export async function clabHere(...args: string[]): Promise<ClabResult> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const writes = { out: process.stdout.write, err: process.stderr.write };
  // main() adds an EPIPE listener to both streams each call: those it added go again afterwards.
  const listeners = { out: process.stdout.listeners('error'), err: process.stderr.listeners('error') };
  const exitCodeBefore = process.exitCode;
  process.exitCode = undefined;
  process.stdout.write = ((chunk: string | Uint8Array) => stdout.push(String(chunk)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => stderr.push(String(chunk)) > 0) as typeof process.stderr.write;
  let status: number;
  try {
    await bundle.main(['node', 'clab', ...args]);
    status = Number(process.exitCode ?? 0);
  } catch (e) {
    // What bin/clab.cjs does with an error that escaped every command.
    stderr.push(`clab: ${bundle.visibleControls(String(e instanceof Error && e.stack ? e.stack : e))}\n`);
    status = 1;
  } finally {
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
    for (const l of process.stdout.listeners('error')) if (!listeners.out.includes(l)) process.stdout.off('error', l as () => void);
    for (const l of process.stderr.listeners('error')) if (!listeners.err.includes(l)) process.stderr.off('error', l as () => void);
    process.exitCode = exitCodeBefore;
  }
  return { status, stdout: stdout.join(''), stderr: stderr.join('') };
}
