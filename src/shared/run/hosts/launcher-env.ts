// Where a `clab worker` stands in the world, read from the environment its launcher gave it:
// torchrun, Slurm, Open MPI, MVAPICH, MPICH and Intel MPI (Hydra's PMI variables), PMIx, a
// Kubernetes Indexed Job; explicit flags win over all of them.
// Pure: the caller passes the environment and the flags.

export interface RankPlace {
  rank: number;
  world: number;
  /** The rank's place among the ranks of its host (picks its GPU). */
  localRank: number;
  /** The CUDA device the rank runs on, as CUDA numbers the devices it sees. */
  device: number;
  /** Which launcher's variables (or flags) said so, e.g. "torchrun (RANK, WORLD_SIZE, LOCAL_RANK)". */
  source: string;
}

export interface PlaceFlags {
  rank?: number;
  world?: number;
  localRank?: number;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The launchers, in the order they are tried: each names its rank, world size and local rank
 * variables (null: the launcher sets none; --world or --local-rank says). Where one launcher sets
 * another's variables too, the more particular comes first: Slurm's srun may also set PMI_RANK or
 * PMIX_RANK, an MVAPICH rank may see a PMI_RANK beside MVAPICH's own, Open MPI 5 sets PMIX_RANK
 * beside its OMPI_ ones.
 */
const LAUNCHERS: { name: string; rank: string; world: string | null; local: string | null }[] = [
  { name: 'torchrun', rank: 'RANK', world: 'WORLD_SIZE', local: 'LOCAL_RANK' },
  { name: 'Slurm', rank: 'SLURM_PROCID', world: 'SLURM_NTASKS', local: 'SLURM_LOCALID' },
  { name: 'Open MPI', rank: 'OMPI_COMM_WORLD_RANK', world: 'OMPI_COMM_WORLD_SIZE', local: 'OMPI_COMM_WORLD_LOCAL_RANK' },
  { name: 'MVAPICH', rank: 'MV2_COMM_WORLD_RANK', world: 'MV2_COMM_WORLD_SIZE', local: 'MV2_COMM_WORLD_LOCAL_RANK' },
  // MPICH's and Intel MPI's mpiexec (Hydra) give each process its PMI rank and size and its place on the node.
  { name: 'MPICH / Intel MPI (Hydra)', rank: 'PMI_RANK', world: 'PMI_SIZE', local: 'MPI_LOCALRANKID' },
  // A PMIx launcher (prterun, srun --mpi=pmix) names the rank alone; the size is the client library's to ask.
  { name: 'PMIx', rank: 'PMIX_RANK', world: null, local: null },
  // An Indexed Job's pod knows its index; the world comes from --world (the Job's completions) or CLAB_WORLD.
  { name: 'Kubernetes Indexed Job', rank: 'JOB_COMPLETION_INDEX', world: 'CLAB_WORLD', local: null },
];

export class PlaceError extends Error {}

function whole(value: string | undefined, what: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new PlaceError(`${what} is ${JSON.stringify(value)}, not a whole number`);
  return n;
}

/**
 * The rank, world, local rank and device: flags first, else the first launcher whose rank variable
 * is set. Throws PlaceError naming what is missing or out of range.
 */
export function rankPlace(env: Env, flags: PlaceFlags = {}): RankPlace {
  const launcher = LAUNCHERS.find((l) => env[l.rank] !== undefined && env[l.rank] !== '');
  const rank = flags.rank ?? (launcher ? whole(env[launcher.rank], launcher.rank) : undefined);
  const world = flags.world ?? (launcher?.world ? whole(env[launcher.world], launcher.world) : undefined);
  if (rank === undefined) {
    throw new PlaceError(
      `no rank: pass --rank, or start the worker with a launcher that sets one (${LAUNCHERS.map((l) => `${l.name} ${l.rank}`).join(', ')})`,
    );
  }
  if (world === undefined) {
    const why = !launcher
      ? ''
      : launcher.world
        ? ` (${launcher.name} did not set ${launcher.world})`
        : ` (${launcher.name} sets no world size)`;
    throw new PlaceError(`no world size: pass --world${why}`);
  }
  if (world < 1) throw new PlaceError(`the world size is ${world}; it must be 1 or more`);
  if (rank >= world) throw new PlaceError(`rank ${rank} is outside a world of ${world} (ranks 0 to ${world - 1})`);
  const localRank = flags.localRank ?? (launcher?.local ? whole(env[launcher.local], launcher.local) : undefined) ?? 0;
  const parts = [
    flags.rank !== undefined && '--rank',
    flags.world !== undefined && '--world',
    flags.localRank !== undefined && '--local-rank',
  ].filter(Boolean);
  const from = launcher ? `${launcher.name} (${[launcher.rank, launcher.world, launcher.local].filter(Boolean).join(', ')})` : null;
  const source = [parts.length ? parts.join(', ') : null, from].filter(Boolean).join(' over ') || 'flags';
  return { rank, world, localRank, device: deviceOf(env, localRank), source };
}

/**
 * The GPU by local rank, as CUDA numbers what it sees: with CUDA_VISIBLE_DEVICES naming one GPU
 * (a launcher that gives each task its own), that one; naming several, the local rank's among them.
 */
export function deviceOf(env: Env, localRank: number): number {
  const visible = env.CUDA_VISIBLE_DEVICES?.split(',').filter((d) => d.trim() !== '');
  if (!visible || visible.length === 0) return localRank;
  if (visible.length === 1) return 0;
  if (localRank >= visible.length)
    throw new PlaceError(
      `local rank ${localRank} has no GPU of its own: CUDA_VISIBLE_DEVICES names ${visible.length} (${visible.join(',')})`,
    );
  return localRank;
}

/** "HOST:PORT", "[v6]:PORT" or "PORT" (host `defaultHost`): the address to listen on or connect to. */
export function parseAddress(text: string, defaultHost: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(text) ?? /^()()(\d+)$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new PlaceError(`"${text}" is not [HOST:]PORT (a port from 0 to 65535)`);
  return { host: m[1] || m[2] || defaultHost, port };
}
