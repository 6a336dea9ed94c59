// `clab worker`: a rank started by a launcher (srun, mpirun, mpiexec, torchrun --no-python, a
// Kubernetes Indexed Job, ssh) on any host. It reads its rank from the launcher's environment, connects back
// to `clab run --listen`, and runs its plan as a forked rank does.
import { accessSync, constants, mkdirSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { parseAddress, rankPlace, type RankPlace } from '../../../shared/run/hosts/launcher-env.js';
import { hostIdentity } from '../../core/hosts/identity.js';
import { runRemoteWorker, WORKER_REFUSED } from '../../core/hosts/remote-worker.js';
import { readToken } from '../../core/hosts/token.js';
import { resolveWorkerEntry } from '../../core/ground/paths.js';
import { err, type RegisterCommand } from '../common.js';

interface WorkerFlags {
  connect: string;
  tokenFile: string;
  rank?: number;
  world?: number;
  localRank?: number;
  hostId?: string;
  hostName?: string;
  connectTimeout: number;
  logDir?: string;
}

const whole = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number');
  return n;
};

/** The log folder, made where missing and checked writable before the worker joins: a rank's output is not lost at its first line. */
function checkLogDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw new Error(`--log-dir ${dir}: cannot keep the rank's output there: ${(e as Error).message}`, { cause: e });
  }
}

async function workerCommand(flags: WorkerFlags): Promise<number> {
  let place: RankPlace;
  let address: { host: string; port: number };
  let token: string;
  let entry: string;
  try {
    address = parseAddress(flags.connect, '127.0.0.1');
    place = rankPlace(process.env, { rank: flags.rank, world: flags.world, localRank: flags.localRank });
    token = readToken(flags.tokenFile);
    entry = resolveWorkerEntry();
    if (flags.logDir !== undefined) checkLogDir(flags.logDir);
  } catch (e) {
    err(`clab worker: ${(e as Error).message}`);
    return WORKER_REFUSED;
  }
  const stops: ((why: string) => void)[] = [];
  const onSignal = (signal: NodeJS.Signals) => stops.forEach((stop) => stop(`got ${signal}`));
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  try {
    return await runRemoteWorker({
      ...address,
      token,
      place,
      entry,
      identity: hostIdentity(process.env, { id: flags.hostId, name: flags.hostName }),
      connectTimeoutMs: flags.connectTimeout * 1000,
      log: err,
      onStop: (stop) => stops.push(stop),
      logDir: flags.logDir,
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  }
}

export const registerWorker: RegisterCommand = (program, setExit) => {
  program
    .command('worker')
    .description('A rank for `clab run --listen`: started by a launcher on any host, it connects back to the core and runs its plan.')
    .requiredOption('--connect <host:port>', 'where `clab run --listen` waits')
    .requiredOption('--token-file <file>', "the run's token (the same file, or a copy readable by its user alone)")
    .option(
      '--rank <n>',
      "this rank (over the launcher's RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK, MV2_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, JOB_COMPLETION_INDEX)",
      whole,
    )
    .option(
      '--world <n>',
      'the number of ranks (over WORLD_SIZE, SLURM_NTASKS, OMPI_COMM_WORLD_SIZE, MV2_COMM_WORLD_SIZE, PMI_SIZE)',
      whole,
    )
    .option(
      '--local-rank <n>',
      "this rank's place on its host, which picks its GPU (over LOCAL_RANK, SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID)",
      whole,
    )
    .option('--host-id <id>', "the host's identity (default hostname and boot id; CLAB_HOST_ID): for tests and containers")
    .option('--host-name <name>', "the host's name in the record, its identity unchanged (CLAB_HOST_NAME), e.g. a network namespace")
    .option('--connect-timeout <seconds>', 'how long to keep trying to reach the core', Number, 60)
    .option('--log-dir <dir>', "also keep the rank's output on this host, in DIR/RUN/HOST.rankN.log (the run's record says where)")
    .action(async (flags: WorkerFlags) => setExit(await workerCommand(flags)));
};
