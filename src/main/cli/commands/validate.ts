// `clab validate`: every problem of a scenario file, with position, path and expectation.
import { worldSize } from '../../../shared/plan/compile.js';
import { compileLoaded } from '../../../shared/plan/text.js';
import { loadScenarioFile } from '../../core/scenario-file.js';
import { EXIT_OK, out, rankCount, reportUsageError, reportWarnings, type RegisterCommand } from '../common.js';

const warned = (n: number) => (n ? ` (${n} warning${n === 1 ? '' : 's'})` : '');

function validateCommand(file: string, flags: { ranks?: number }): number {
  try {
    const loaded = loadScenarioFile(file);
    const plan = compileLoaded(loaded, { ranks: flags.ranks });
    reportWarnings(loaded.warnings);
    out(`${file}: OK — "${loaded.scenario.name}", ${plan.steps.length} steps on ${worldSize(loaded.scenario, flags)} ranks${warned(loaded.warnings.length)}`);
    return EXIT_OK;
  } catch (e) {
    return reportUsageError(e);
  }
}

export const registerValidate: RegisterCommand = (program, setExit) => {
  program
    .command('validate')
    .description('Check a scenario file; every problem is reported with file:line:column, JSON path and what was expected.')
    .argument('<file>', 'a *.scenario.json file')
    .option('--ranks <n>', 'check against this many ranks instead of the scenario\'s world', rankCount)
    .action((file: string, flags: { ranks?: number }) => setExit(validateCommand(file, flags)));
};
