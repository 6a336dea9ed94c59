// `clab compare`: two saved runs side by side — step times and busbw, which changes stand out
// from the runs' own spread, compare blocks, and what differs in their environments.
import { compareRuns, comparisonReport } from '../../../shared/export/index.js';
import { EXIT_OK, out, outJson, readShownRecord, reportUsageError, type RegisterCommand } from '../common.js';

function compareCommand(fileA: string, fileB: string, flags: { json?: boolean }): number {
  try {
    const comparison = compareRuns(readShownRecord(fileA), readShownRecord(fileB));
    if (flags.json) outJson(JSON.stringify(comparison));
    else for (const line of comparisonReport(comparison)) out(line);
    return EXIT_OK;
  } catch (e) {
    return reportUsageError(e);
  }
}

export const registerCompare: RegisterCommand = (program, setExit) => {
  program
    .command('compare')
    .description('Compare two saved runs: time and busbw of the steps they share, compare blocks, environment differences.')
    .argument('<a>', 'the first *.run.json file (the baseline)')
    .argument('<b>', 'the second *.run.json file')
    .option('--json', 'print the comparison as JSON')
    .action((a: string, b: string, flags: { json?: boolean }) => setExit(compareCommand(a, b, flags)));
};
