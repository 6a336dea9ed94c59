// `clab validate`: every problem of a scenario file, with position, path and expectation.
import { worldSize } from '../../../shared/plan/compile.js';
import type { Plan } from '../../../shared/plan/types.js';
import { compileLoaded, ScenarioFileError, worldProblemsOfValidSteps, type LoadedScenario } from '../../../shared/plan/text.js';
import { loadScenarioFile } from '../../core/library/scenario-file.js';
import { readCappedText } from '../../core/ground/read-capped.js';
import { LIMITS } from '../../../shared/scenario/limits.js';
import { copyEngineNeedsPeerAttributes, copyEnginePairs, copyEngineRefusal } from '../../../shared/plan/copy-engine.js';
import { loadAddon } from '../../../addon/addon.js';
import { err, EXIT_FAILED, EXIT_OK, out, rankCount, reportUsageError, reportWarnings, type RegisterCommand } from '../common.js';

const warned = (n: number) => (n ? ` (${n} warning${n === 1 ? '' : 's'})` : '');

function validateCommand(file: string, flags: { ranks?: number; gpus?: boolean }): number {
  let loaded: LoadedScenario;
  try {
    loaded = loadScenarioFile(file);
  } catch (e) {
    return reportUsageError(withWorldProblems(e, file, flags.ranks));
  }
  try {
    // Every step passed the schema: the plan's problems are all the world's (withWorldProblems would say them twice).
    const plan = compileLoaded(loaded, { ranks: flags.ranks });
    const unchecked = flags.gpus ? checkGpus(file, plan) : null;
    reportWarnings(loaded.warnings);
    const what = `"${loaded.scenario.name}", ${plan.steps.length} steps on ${worldSize(loaded.scenario, flags)} ranks${warned(loaded.warnings.length)}`;
    // --gpus asked for a check that could not be made: the file is valid, but no OK is said for the GPUs.
    if (unchecked) {
      out(`${file}: valid — ${what}; NOT checked against GPUs`);
      err(`${file}: could not check against this machine's GPUs: ${unchecked}`);
      return EXIT_FAILED;
    }
    out(`${file}: OK — ${what}${flags.gpus ? ", checked against this machine's GPUs" : ''}`);
    return EXIT_OK;
  } catch (e) {
    return reportUsageError(e);
  }
}

/**
 * Checks the plan against this machine's GPUs: copy-engine transfers need peer access between
 * them. NVLink means it; for other pairs CUDA's peer attributes say (time a run does not spend
 * before it starts: its ranks refuse such a pair alike, and the run goes on). Throws what the GPUs
 * refuse; returns why they could not be asked (no addon, no GPU), else null.
 */
function checkGpus(file: string, plan: Plan): string | null {
  let addon;
  try {
    addon = loadAddon();
  } catch (e) {
    return `the native addon did not load (${(e as Error).message})`;
  }
  const topology = addon.topology();
  if (!topology.gpus.length) return `CUDA sees no GPU here${topology.problems.length ? ` (${topology.problems.join('; ')})` : ''}`;
  if (!copyEnginePairs(plan).length) return null;
  let links = topology.links;
  if (copyEngineNeedsPeerAttributes(plan, links)) links = addon.topology({ detailed: true }).links;
  const refused = copyEngineRefusal(plan, links);
  if (refused) throw Object.assign(new Error(`${file}: ${refused}`), { code: 'CLAB_UNSUPPORTED' });
  return null;
}

/**
 * A file the schema refuses is also checked against its world on the steps that pass (a root
 * outside the world, a send to itself), so every problem is said at once, as the editor does.
 * Only then: a file the schema accepts has had every step checked against its world already.
 */
function withWorldProblems(e: unknown, file: string, ranks: number | undefined): unknown {
  if (!(e instanceof ScenarioFileError)) return e;
  let text: string;
  try {
    text = readCappedText(file, { maxBytes: LIMITS.fileBytes });
  } catch {
    return e;
  }
  const more = worldProblemsOfValidSteps(text, file, { ranks });
  return more.length ? new ScenarioFileError([...e.problems, ...more].sort((a, b) => a.line - b.line || a.column - b.column)) : e;
}

export const registerValidate: RegisterCommand = (program, setExit) => {
  program
    .command('validate')
    .description('Check a scenario file; every problem is reported with file:line:column, JSON path and what was expected.')
    .argument('<file>', 'a *.scenario.json file')
    .option('--ranks <n>', "check against this many ranks instead of the scenario's world", rankCount)
    .option(
      '--gpus',
      "also check against this machine's GPUs (copy-engine transfers need peer access between them); exits 1, saying why, where there are none to check",
    )
    .action((file: string, flags: { ranks?: number; gpus?: boolean }) => setExit(validateCommand(file, flags)));
};
