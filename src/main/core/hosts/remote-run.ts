// A run whose ranks join from a launcher, as start-run.ts prepares it: the token (made and
// written for the user alone when none is given), the listener, the start lines printed while
// the core waits or the launcher started here, and everything undone at the end.
import { rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { parseAddress } from '../../../shared/run/hosts/launcher-env.js';
import type { BackendName } from '../../../shared/run/rank/protocol.js';
import { RemoteRanks } from './listener.js';
import { clabCommand, connectAddress, startLauncher, startLines, workerCommand, type Launched } from './launch.js';
import { defaultTokenPath, readToken, writeNewToken } from './token.js';

export interface RemoteRequest {
  /** "[HOST:]PORT"; the host defaults to loopback (127.0.0.1). Port 0: any free one. */
  listen: string;
  /** The run's token; when absent, a fresh one is written to ~/.clab/tokens/ (mode 0600) and removed at the end. */
  tokenFile?: string;
  /** A launcher to start, e.g. "mpirun -np 8 -H a,b": `clab worker --connect … --token-file …` goes after it. */
  launch?: string;
  /** How long the world may take to join (default 120 s). */
  joinTimeoutMs?: number;
  /** A link silent this long is lost (default 5 s). */
  silenceMs?: number;
  /** The clab the workers run (default this package's bin/clab.cjs). */
  clab?: string;
}

export interface RemoteRun {
  ranks: RemoteRanks;
  /** Listens, says how to start the workers (or starts the launcher), runs `start`, and cleans up. */
  around<T>(start: () => Promise<T>): Promise<T>;
}

export const DEFAULT_JOIN_TIMEOUT_MS = 120_000;

/** Who can reach a listener on `host`: "this host only" on a loopback address, else the network it faces. */
export function listenScope(host: string): string {
  const h = host.replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1' || /^127\./.test(h) || /^::ffff:127\./i.test(h)) return 'this host only';
  if (h === '0.0.0.0' || h === '::') return 'every network of this host: workers on other hosts may join';
  return `the network of ${h}: workers on other hosts may join`;
}

export function remoteRanks(request: RemoteRequest, world: number, backend: BackendName, notice: (line: string) => void): RemoteRun {
  const { host, port } = parseAddress(request.listen, '127.0.0.1');
  const made = request.tokenFile === undefined;
  const tokenFile = request.tokenFile ?? defaultTokenPath(`${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`);
  const token = made ? writeNewToken(tokenFile) : readToken(tokenFile);
  const joinTimeoutMs = request.joinTimeoutMs ?? DEFAULT_JOIN_TIMEOUT_MS;
  const ranks = new RemoteRanks({ host, port, token, world, backend, joinTimeoutMs, silenceMs: request.silenceMs, log: notice });
  return {
    ranks,
    async around(start) {
      let launched: Launched | null = null;
      try {
        let bound: { host: string; port: number };
        try {
          bound = await ranks.listen();
        } catch (e) {
          // The run ends at once with the reason, as a run whose ranks never came.
          ranks.close(`cannot listen on ${host}:${port}: ${(e as Error).message}`);
          return await start();
        }
        const worker = workerCommand(request.clab ?? clabCommand(), connectAddress(bound.host, bound.port), tokenFile);
        notice(
          `waiting for ${world} rank${world === 1 ? '' : 's'} at ${connectAddress(bound.host, bound.port)} (${listenScope(bound.host)}; token in ${tokenFile}; join timeout ${Math.round(joinTimeoutMs / 1000)} s)`,
        );
        if (request.launch) {
          notice(`starting the launcher: ${request.launch} ${worker}`);
          launched = startLauncher(request.launch, worker, notice, (code, signal) => {
            if (code !== 0) ranks.close(`the launcher exited ${signal ? `on signal ${signal}` : `with code ${code}`}`);
          });
        } else {
          notice('start the workers with one of:');
          for (const line of startLines(world, worker)) notice(`  ${line}`);
        }
        return await start();
      } finally {
        ranks.close('the run ended');
        await launched?.stop();
        if (made) rmSync(tokenFile, { force: true });
      }
    },
  };
}
