// Real processes for the hosts tests: `clab run --listen` and `clab worker`s (optionally inside a
// network namespace), their output kept, every one of them ended when the test is over.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const CLAB = resolve('bin/clab.cjs');

export interface Proc {
  child: ChildProcess;
  out: string;
  err: string;
  exited: Promise<number | null>;
}

const started: Proc[] = [];
const folders: string[] = [];

export function start(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Proc {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const p: Proc = { child, out: '', err: '', exited: new Promise((r) => child.on('exit', (code) => r(code))) };
  child.stdout!.on('data', (d) => {
    p.out += d;
  });
  child.stderr!.on('data', (d) => {
    p.err += d;
  });
  started.push(p);
  return p;
}

/**
 * `clab worker` joining the core at `address` (host:port) as rank `rank` of `world`, proving itself
 * with the token in `token`; `more`: further arguments (a host name, a log folder).
 */
export function startWorker(
  address: string,
  token: string,
  rank: number,
  world: number,
  more: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Proc {
  return start(
    'node',
    [CLAB, 'worker', '--connect', address, '--token-file', token, '--rank', String(rank), '--world', String(world), ...more],
    env,
  );
}

/** Ends every process group a test started (the workers' rank processes with them), and removes its token folders. */
export function endAll(): void {
  for (const p of started.splice(0)) {
    try {
      process.kill(-p.child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Resolves once `text` appears in the process's stderr, or rejects after `ms`. */
export async function waitFor(p: Proc, text: string | RegExp, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (let i = 0; i < Math.ceil(ms / 50); i++) {
    if (typeof text === 'string' ? p.err.includes(text) : text.test(p.err)) return;
    if (Date.now() > until) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`waited ${ms} ms for ${String(text)}; stderr so far:\n${p.err}`);
}

/** A token file of the user's alone, in a fresh folder (removed by endAll). */
export function tokenFile(token = randomBytes(32).toString('hex')): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'clab-hosts-'));
  folders.push(dir);
  const file = join(dir, 'token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { dir, file };
}

/** Whether `command` runs here. */
/** Open MPI refuses to run as root unless told to (CI runs as root). */
export const AS_ROOT = { OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' };

/**
 * `clab run` of the all-in-one on `ranks` cpu ranks that `launch` starts (`--launch`), its record
 * written to `out`, its token and CLAB_HOME in `dir`.
 */
export function launchedAllInOne(dir: string, out: string, ranks: number, launch: string): Proc {
  const args = ['run', 'scenarios/all-in-one.scenario.json', '--backend', 'cpu', '--ranks', String(ranks), '--out', out];
  return start('node', [CLAB, ...args, '--launch', launch, '--join-timeout', '60'], { ...AS_ROOT, CLAB_HOME: dir });
}

export const has = (command: string, args = ['--version']): boolean => spawnSync(command, args, { stdio: 'ignore' }).status === 0;

export const isRoot = (): boolean => process.getuid?.() === 0;

/** Whether the process `pid` is still there. */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Every process whose command line mentions `text` (ours: the token folder is unique to a test). */
export function pidsMentioning(text: string): number[] {
  const r = spawnSync('pgrep', ['-f', text], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => pid !== process.pid);
}
