// `clab run SCENARIO --nccl A --nccl B`: the scenario on two NCCL libraries, the sides taking turns
// --repeats times (A B, B A, …); every run's record kept, a table of B/A per step printed, and the
// A/B summary written beside the records (nccl-ab.json) for the app to show.
import { mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError } from 'commander';
import type { BackendRequest } from '../../core/machine/backend.js';
import { writeFileAtomic } from '../../core/ground/atomic-file.js';
import { checkNcclLibraryPath } from '../../core/machine/nccl-library.js';
import { runAb, type RunSide } from '../../core/service/nccl-ab/run-ab.js';
import { loadScenarioFile } from '../../core/library/scenario-file.js';
import { prepareRun } from '../../core/service/start-run.js';
import { runSucceeded } from '../../../shared/results/expectation.js';
import { abTableLines } from '../../../shared/results/nccl-ab.js';
import { EXIT_FAILED, EXIT_OK, err, out, outJson, reportUsageError, reportWarnings } from '../common.js';

export const AB_REPEATS_DEFAULT = 3;
/** The paired interval reads at most 1000 ratios; 100 turns per side is already hours on a sweep. */
export const AB_REPEATS_MAX = 100;
/** The summary's name in the A/B's folder. */
export const AB_SUMMARY_FILE = 'nccl-ab.json';

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

/** Why an A/B of two NCCL libraries cannot run on the cpu backend, in one line. */
export const CPU_REFUSAL = '--nccl twice compares two NCCL libraries, and the cpu backend loads none: run it on the nccl backend';

class AbRefusal extends Error {}

const stamp = (d: Date) => d.toISOString().replace(/[:.]/g, '-');

export async function runAbCommand(file: string, libraries: string[], flags: AbFlags): Promise<number> {
  let runSide: RunSide;
  let folder: string;
  let scenarioName: string;
  try {
    if (libraries.length !== 2)
      throw new AbRefusal(`--nccl goes once (the library a run loads) or twice (an A/B of two); got ${libraries.length}`);
    if (flags.alone?.length) throw new AbRefusal(`--nccl twice runs the scenario on this host's GPUs, without ${flags.alone.join(', ')}`);
    const loaded = loadScenarioFile(file);
    reportWarnings(loaded.warnings);
    if ((flags.backend ?? loaded.scenario.backend) === 'cpu') throw new AbRefusal(CPU_REFUSAL);
    // Both libraries checked before the first run: a mistyped B is said now, not after A's repeats.
    for (const library of libraries) checkNcclLibraryPath(library, 'the NCCL library');
    scenarioName = loaded.scenario.name;
    folder = flags.out ?? join('runs', `${scenarioName.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-nccl-ab-${stamp(new Date())}`);
    mkdirSync(folder, { recursive: true });
    runSide = async ({ repeat, side, library }) => {
      const prepared = prepareRun({
        loaded,
        scenarioFile: file,
        ranks: flags.ranks,
        backend: flags.backend,
        recordPath: join(folder, `${side}${repeat + 1}.run.json`),
        stopOnSignals: true,
        ncclLibrary: library,
        onCheckpointError: (e) => err(`[lab] the run record could not be kept current: ${e.message}`),
      });
      // auto with no GPU here falls back to cpu, where neither library would be loaded.
      if (prepared.backend.backend === 'cpu') throw new AbRefusal(CPU_REFUSAL);
      const { record, savedTo, saveError } = await prepared.start();
      if (saveError) err(`clab: the run record could not be written to ${prepared.recordPath}: ${saveError.message}`);
      return { record, savedTo };
    };
  } catch (e) {
    return reportUsageError(e);
  }
  const repeats = flags.repeats ?? AB_REPEATS_DEFAULT;
  let result;
  try {
    result = await runAb({
      scenario: scenarioName,
      scenarioFile: file,
      repeats,
      libraries: { A: libraries[0], B: libraries[1] },
      runSide,
      onTurn: (r) =>
        err(`[ab] repeat ${r.repeat + 1}/${repeats}, ${r.side}: ${r.record.status}${r.savedTo ? `, run record: ${r.savedTo}` : ''}`),
    });
  } catch (e) {
    // Refused before its first run (auto chose cpu): a usage error, and the folder made for it goes.
    if (e instanceof AbRefusal) {
      if (!readdirSync(folder).length) rmdirSync(folder);
      return reportUsageError(e);
    }
    // Anything else broke the lab.
    throw e;
  }
  const summaryPath = join(folder, AB_SUMMARY_FILE);
  writeFileAtomic(summaryPath, `${JSON.stringify(result.summary, null, 2)}\n`);
  if (flags.json) outJson(JSON.stringify(result.summary));
  else {
    for (const line of abTableLines(result.summary)) out(line);
    out(`A/B summary: ${summaryPath}`);
  }
  return result.runs.every((r) => runSucceeded(r.record)) ? EXIT_OK : EXIT_FAILED;
}
