// An NCCL A/B as every door starts it (`clab run --nccl A --nccl B`, the app's startAb): what can be
// refused is refused before the first run (the cpu backend loads no NCCL; a library that is no
// file), then the sides run in turns, each record kept in the A/B's folder, and the A/B file goes
// beside that folder (ab-file.ts).
import { existsSync, mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { LoadedScenario } from '../../../../shared/plan/text.js';
import type { NcclAbSummary } from '../../../../shared/results/nccl-ab.js';
import type { BackendRequest } from '../../machine/backend.js';
import { checkNcclLibraryPath } from '../../machine/nccl-library.js';
import { fileTimeStamp, scenarioSlug } from '../../library/record-store.js';
import { prepareRun, type PreparedRun, type RunRequest } from '../start-run.js';
import { abFileOf, saveAb } from './ab-file.js';
import { runAb, type RunSide } from './run-ab.js';
import type { AbRun } from './summarize.js';

/** Why an A/B of two NCCL libraries cannot run on the cpu backend, in one line. */
export const CPU_REFUSAL = '--nccl twice compares two NCCL libraries, and the cpu backend loads none: run it on the nccl backend';

/** An A/B refused before its first run: said as the request's fault, in one line. */
export class AbRefusal extends Error {
  readonly code = 'CLAB_AB_REFUSED';
}

export interface AbStartRequest {
  loaded: LoadedScenario;
  scenarioFile: string | null;
  /** A's library, then B's. */
  libraries: readonly [string, string];
  repeats: number;
  backend?: BackendRequest;
  ranks?: number;
  /** Where the side records go (A1.run.json, B1.run.json, …); the A/B file is `<folder>.nccl-ab.json`. */
  folder: string;
  /** What each side's prepareRun gets besides the scenario, the library and the record's path. */
  run?: Pick<RunRequest, 'loadAddon' | 'workerEntry' | 'stopOnSignals' | 'onCheckpointError'>;
  /** Each side's run, prepared, before it starts (a door follows its events, or stops it). */
  onPrepared?(prepared: PreparedRun): void;
  /** A side's record could not be written. */
  onSaveError?(recordPath: string, error: Error): void;
  onTurn?(run: AbRun): void;
}

export interface AbOutcome {
  runs: AbRun[];
  /** What was written: the turns' records relative to the file's folder. */
  summary: NcclAbSummary;
  file: string;
}

/** A new A/B's folder in `dir`: the scenario's slug, `nccl-ab`, the time and a random tail. */
export function abFolder(scenarioName: string, createdAt: Date, dir: string): string {
  return join(dir, `${scenarioSlug(scenarioName)}-nccl-ab-${fileTimeStamp(createdAt)}-${randomBytes(3).toString('hex')}`);
}

/**
 * Checks the A/B (AbRefusal, or the library's NcclLibraryError naming it) and returns how it runs:
 * start() runs every turn and writes the A/B file; it rejects with AbRefusal where auto chose cpu at
 * the first turn (the folder made for it goes, if empty), and otherwise only where the lab broke.
 */
export function prepareAb(request: AbStartRequest): { file: string; turns: number; start(): Promise<AbOutcome> } {
  if ((request.backend ?? request.loaded.scenario.backend) === 'cpu') throw new AbRefusal(CPU_REFUSAL);
  // Both libraries checked before the first run: a mistyped B is said now, not after A's repeats.
  for (const library of request.libraries) checkNcclLibraryPath(library, 'the NCCL library');
  const { folder } = request;
  const file = abFileOf(folder);
  const runSide: RunSide = async ({ repeat, side, library }) => {
    const prepared = prepareRun({
      ...request.run,
      loaded: request.loaded,
      scenarioFile: request.scenarioFile,
      ranks: request.ranks,
      backend: request.backend,
      recordPath: join(folder, `${side}${repeat + 1}.run.json`),
      ncclLibrary: library,
    });
    // auto with no GPU here falls back to cpu, where neither library would be loaded.
    if (prepared.backend.backend === 'cpu') throw new AbRefusal(CPU_REFUSAL);
    request.onPrepared?.(prepared);
    const { record, savedTo, saveError, ranksGone } = await prepared.start();
    if (saveError) request.onSaveError?.(prepared.recordPath, saveError);
    // The next turn starts on GPUs whose last contexts the driver has taken back.
    await ranksGone;
    return { record, savedTo };
  };
  const start = async (): Promise<AbOutcome> => {
    const made = !existsSync(folder);
    mkdirSync(folder, { recursive: true });
    let result;
    try {
      result = await runAb({
        scenario: request.loaded.scenario.name,
        scenarioFile: request.scenarioFile,
        repeats: request.repeats,
        libraries: { A: request.libraries[0], B: request.libraries[1] },
        runSide,
        onTurn: request.onTurn,
        // Stopped between two turns (the app's Stop, the lab closing): the turns that ran are kept.
        endsEarly: (e) => (e instanceof AbRefusal && e.message !== CPU_REFUSAL ? e.message : null),
      });
    } catch (e) {
      if (e instanceof AbRefusal && made && !readdirSync(folder).length) rmdirSync(folder);
      throw e;
    }
    return { runs: result.runs, summary: saveAb(file, result.summary), file };
  };
  return { file, turns: 2 * request.repeats, start };
}
