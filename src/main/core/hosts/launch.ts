// How the workers get started: the line to give each launcher (printed while the core waits), or
// the launcher started here (`--launch "srun -N2 --ntasks-per-node=8"`), which gets
// `clab worker --connect … --token-file …` appended and is ended with the run.
import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { findPackageRoot } from '../ground/package-root.js';

/** A word for a POSIX shell, quoted only where it must be. */
export const shellWord = (w: string): string => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/** The clab to start on the hosts: this package's bin/clab.cjs (the same path on a shared file system), or `clab`. */
export function clabCommand(): string {
  try {
    return join(findPackageRoot(), 'bin', 'clab.cjs');
  } catch {
    return 'clab';
  }
}

/** Where workers connect: the address listened on, or this host's name when it listens on every address. */
export function connectAddress(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '::' ? hostname() : host;
  return `${h.includes(':') ? `[${h}]` : h}:${port}`;
}

/** `clab worker --connect ADDRESS --token-file FILE`. */
export const workerCommand = (clab: string, address: string, tokenFile: string): string =>
  `${shellWord(clab)} worker --connect ${address} --token-file ${shellWord(tokenFile)}`;

/** The lines to start `world` workers with, one per launcher. */
export function startLines(world: number, worker: string): string[] {
  return [
    `srun -n ${world} ${worker}`,
    `mpirun -np ${world} ${worker}`,
    `torchrun --nnodes NODES --nproc-per-node ${world}/NODES --node-rank I --master-addr FIRST_NODE --no-python ${worker}   (on each node I)`,
    `ssh HOST ${worker} --rank R --world ${world} --local-rank L   (one per rank, R from 0 to ${world - 1})`,
    `Kubernetes Indexed Job (completions ${world}): ${worker} --world ${world}   (the rank is JOB_COMPLETION_INDEX)`,
  ];
}

export interface Launched {
  /** Waits a moment for the launcher to end by itself (its workers end with the run), then ends its process group. */
  stop(): Promise<void>;
}

/** How long a launcher gets to end by itself once the run is over. */
const LAUNCHER_GRACE_MS = 3000;

/**
 * Starts `launcher` with the worker command after it, through the shell, in a process group of its
 * own. Its output goes to `log`; `exited` hears how it ended.
 */
export function startLauncher(
  launcher: string,
  worker: string,
  log: (line: string) => void,
  exited: (code: number | null, signal: string | null) => void,
): Launched {
  const child: ChildProcess = spawn('/bin/sh', ['-c', `exec ${launcher} ${worker}`], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr])
    if (stream) createInterface({ input: stream }).on('line', (l) => log(`launcher: ${l}`));
  let running = true;
  const ended = new Promise<void>((resolve) =>
    child.on('exit', (code, signal) => {
      running = false;
      exited(code, signal);
      resolve();
    }),
  );
  child.on('error', (e) => log(`launcher: ${e.message}`));
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // the group is gone already
    }
  };
  return {
    async stop() {
      // Each wait's timer is cleared once the launcher has ended: a pending one kept clab's event
      // loop, and so clab itself, alive for the rest of the grace (3 s after every --launch run).
      const endedWithin = async (ms: number) => {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([ended, new Promise((r) => (timer = setTimeout(r, ms)))]);
        clearTimeout(timer);
      };
      if (running) await endedWithin(LAUNCHER_GRACE_MS);
      if (running) {
        log('launcher: still running after the run; ending it');
        signalGroup('SIGTERM');
        await endedWithin(2000);
      }
      // Whatever it started and left behind in its group.
      signalGroup('SIGKILL');
    },
  };
}
