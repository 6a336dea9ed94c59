// `clab export`: a saved run as a Chrome/Perfetto trace, or its results table as CSV or JSON.
import { Option } from 'commander';
import { chromeTrace, resultsCsv, resultsJson } from '../../../shared/export/index.js';
import type { RunRecord } from '../../../shared/run/record.js';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { readRecord } from '../../core/record-store.js';
import { EXIT_OK, reportUsageError, type RegisterCommand } from '../common.js';

const EXPORT_FORMATS = ['chrome-trace', 'csv', 'json'] as const;
type ExportFormat = (typeof EXPORT_FORMATS)[number];

const EXPORTERS: Record<ExportFormat, (record: RunRecord) => string> = {
  'chrome-trace': (r) => JSON.stringify(chromeTrace(r)),
  csv: resultsCsv,
  json: (r) => `${JSON.stringify(resultsJson(r), null, 2)}\n`,
};

function exportCommand(file: string, flags: { format: ExportFormat; output?: string }): number {
  try {
    const text = EXPORTERS[flags.format](readRecord(file));
    if (flags.output) writeFileAtomic(flags.output, text);
    else process.stdout.write(text);
    return EXIT_OK;
  } catch (e) {
    return reportUsageError(e);
  }
}

export const registerExport: RegisterCommand = (program, setExit) => {
  program
    .command('export')
    .description('Write a saved run as a Chrome trace (Perfetto UI, chrome://tracing) or its results table as CSV or JSON.')
    .argument('<run>', 'a *.run.json file')
    .addOption(new Option('--format <format>', 'what to write').choices(EXPORT_FORMATS).makeOptionMandatory())
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .action((file: string, flags: { format: ExportFormat; output?: string }) => setExit(exportCommand(file, flags)));
};
