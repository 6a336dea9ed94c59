// `clab replay`: print a saved run without running anything.
import { runSucceeded } from '../../../shared/results/expectation.js';
import { runReport, statusLine } from '../../../shared/export/format.js';
import { environmentLine } from '../../../shared/export/environment-line.js';
import { timeToAnswer, timeToAnswerLine } from '../../../shared/run/record/time-to-answer.js';
import type { Imported } from '../../../shared/run/record/imported.js';
import { EXIT_FAILED, EXIT_OK, out, outJson, readShownRecord, reportUsageError, type RegisterCommand } from '../common.js';

/** What an imported record is, before its figures: it is not the lab's own run. */
export function importedLines(imported: Imported): string[] {
  const version = imported.version ? ` ${imported.version}` : '';
  return [
    `# imported from ${imported.file} (${imported.source}, ${imported.program}${version}) on ${imported.importedAt}: measured elsewhere; no values checked by the lab, no timeline`,
    ...imported.notes.map((note) => `#   ${note}`),
  ];
}

function replayCommand(file: string, flags: { json?: boolean }): number {
  try {
    const record = readShownRecord(file);
    if (flags.json) {
      outJson(JSON.stringify(record));
      return EXIT_OK;
    }
    // Everything printed comes from the record, which may hold any text: out() lets no control character reach the terminal.
    const print = out;
    print(
      `# replay of ${record.scenarioFile ?? 'a run'} — recorded ${record.createdAt} on ${record.environment.host} (${record.environment.backend}, ${record.world} ranks)`,
    );
    if (record.imported) for (const line of importedLines(record.imported)) print(line);
    for (const line of runReport(record)) print(line);
    print(environmentLine(record.environment));
    print(statusLine(record));
    if (!record.imported) print(timeToAnswerLine(timeToAnswer(record)));
    return runSucceeded(record) ? EXIT_OK : EXIT_FAILED;
  } catch (e) {
    return reportUsageError(e);
  }
}

export const registerReplay: RegisterCommand = (program, setExit) => {
  program
    .command('replay')
    .description('Print the results of a saved run without running anything.')
    .argument('<run>', 'a *.run.json file')
    .option('--json', 'print the validated record as JSON')
    .action((file: string, flags: { json?: boolean }) => setExit(replayCommand(file, flags)));
};
