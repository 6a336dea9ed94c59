// `clab run SCENARIO --nccl A --nccl B`: the scenario on two NCCL libraries, the sides taking turns
// --repeats times (A B, B A, …); every run's record kept in the A/B's folder, a table of B/A per
// step printed, and the A/B file written beside the folder (`<folder>.nccl-ab.json`) for the app's
// Saved runs to list and show.
import { InvalidArgumentError } from 'commander';
import type { BackendRequest } from '../../core/machine/backend.js';
import { loadScenarioFile } from '../../core/library/scenario-file.js';
import { abFolder, AbRefusal, prepareAb, type AbOutcome } from '../../core/service/nccl-ab/start-ab.js';
import { runSucceeded } from '../../../shared/results/expectation.js';
import { abTableLines } from '../../../shared/results/nccl-ab.js';
import { AB_REPEATS_MAX } from '../../../shared/run/api/nccl-ab-file.js';
import { EXIT_FAILED, EXIT_OK, err, out, outJson, reportUsageError, reportWarnings } from '../common.js';

export const AB_REPEATS_DEFAULT = 3;

export const repeatCount = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > AB_REPEATS_MAX)
    throw new InvalidArgumentError(`expected a whole number of repeats from 1 to ${AB_REPEATS_MAX}`);
  return n;
};

export interface AbFlags {
  backend?: BackendRequest;
  ranks?: number;
  out?: string;
  json?: boolean;
  repeats?: number;
  /** --step, --listen, --launch: none goes with an A/B. */
  alone?: string[];
}

export async function runAbCommand(file: string, libraries: string[], flags: AbFlags): Promise<number> {
  const repeats = flags.repeats ?? AB_REPEATS_DEFAULT;
  let ab: ReturnType<typeof prepareAb>;
  try {
    if (libraries.length !== 2)
      throw new AbRefusal(`--nccl goes once (the library a run loads) or twice (an A/B of two); got ${libraries.length}`);
    if (flags.alone?.length) throw new AbRefusal(`--nccl twice runs the scenario on this host's GPUs, without ${flags.alone.join(', ')}`);
    const loaded = loadScenarioFile(file);
    reportWarnings(loaded.warnings);
    ab = prepareAb({
      loaded,
      scenarioFile: file,
      libraries: [libraries[0], libraries[1]],
      repeats,
      backend: flags.backend,
      ranks: flags.ranks,
      folder: flags.out ?? abFolder(loaded.scenario.name, new Date(), 'runs'),
      run: {
        stopOnSignals: true,
        onCheckpointError: (e) => err(`[lab] the run record could not be kept current: ${e.message}`),
      },
      onSaveError: (path, e) => err(`clab: the run record could not be written to ${path}: ${e.message}`),
      onTurn: (r) =>
        err(`[ab] repeat ${r.repeat + 1}/${repeats}, ${r.side}: ${r.record.status}${r.savedTo ? `, run record: ${r.savedTo}` : ''}`),
    });
  } catch (e) {
    return reportUsageError(e);
  }
  let result: AbOutcome;
  try {
    result = await ab.start();
  } catch (e) {
    // Refused before its first run (auto chose cpu): a usage error. Anything else broke the lab.
    if (e instanceof AbRefusal) return reportUsageError(e);
    throw e;
  }
  if (flags.json) outJson(JSON.stringify(result.summary));
  else {
    for (const line of abTableLines(result.summary)) out(line);
    out(`A/B file: ${result.file} (the app's Saved runs opens it)`);
  }
  return result.runs.every((r) => runSucceeded(r.record)) ? EXIT_OK : EXIT_FAILED;
}
