// Ranks that bin/clab.cjs started before the CLI's bundle loaded (bin/early-ranks.cjs): this
// process's first run of forked ranks adopts them where they are what it would have forked — the
// same worker bundle, as many ranks, all still there, and each one's environment different only in
// variables a rank reads once its `start` has come (NCCL_*, CLAB_*: the scenario's NCCL settings,
// the run's NCCL library), which `start` then carries. Anything else, and they are killed and the
// run forks its own. Offered at most once per process; taken by one run at most.
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { START_ENV_NAME, type StartEnv } from '../../../shared/run/rank/protocol.js';
import { coreTrace } from './trace.js';

/** What bin/early-ranks.cjs hands over. */
export interface EarlyRanks {
  entry: string;
  children: ChildProcess[];
  /** Each child's environment as it was forked. */
  envs: NodeJS.ProcessEnv[];
  /** A run took them: they are its ranks from now on. */
  adopt(): void;
  /** Kills them, unless a run took them. */
  release(): void;
}

let offered: EarlyRanks | null = null;

/** bin/clab.cjs, before the command runs. */
export function offerEarlyRanks(early: EarlyRanks): void {
  offered?.release();
  offered = early;
}

/** Read as the rank starts (the GPU it begins its CUDA context on): the same or not adopted, never set at `start`. */
const IGNORED = new Set(['CLAB_EARLY_DEVICE']);

/** What turns environment `had` into `wanted` at `start`, or null where a variable it needs changed is read before then. */
export function startEnv(had: NodeJS.ProcessEnv, wanted: NodeJS.ProcessEnv): StartEnv | null {
  if (had.CLAB_EARLY_DEVICE !== wanted.CLAB_EARLY_DEVICE) return null;
  const set: Record<string, string> = {};
  const unset: string[] = [];
  for (const [k, v] of Object.entries(wanted)) {
    if (v === undefined || IGNORED.has(k) || had[k] === v) continue;
    if (!START_ENV_NAME.test(k)) return null;
    set[k] = v;
  }
  for (const [k, v] of Object.entries(had)) {
    if (v === undefined || wanted[k] !== undefined || IGNORED.has(k)) continue;
    if (!START_ENV_NAME.test(k)) return null;
    unset.push(k);
  }
  return { set, unset };
}

/**
 * The offered ranks, for a run forking `world` ranks of `entry` whose rank r gets environment
 * `envOf(r)`: each child with what its `start` must set; null where none were offered or they do
 * not fit (then they are killed now).
 */
export function takeEarlyRanks(
  entry: string,
  world: number,
  envOf: (rank: number) => NodeJS.ProcessEnv,
): { child: ChildProcess; env: StartEnv }[] | null {
  const early = offered;
  offered = null;
  if (!early) return null;
  const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null && c.connected;
  const fits = resolve(early.entry) === resolve(entry) && early.children.length === world && early.children.every(alive);
  const envs = fits ? early.envs.map((had, rank) => startEnv(had, envOf(rank))) : [];
  if (!fits || envs.some((e) => e === null)) {
    coreTrace(
      `the ${early.children.length} early rank${early.children.length === 1 ? '' : 's'} do not fit this run: killed, its own forked`,
    );
    early.release();
    return null;
  }
  coreTrace(`${world} early rank${world === 1 ? '' : 's'} adopted`);
  early.adopt();
  return early.children.map((child, rank) => ({ child, env: envs[rank]! }));
}
