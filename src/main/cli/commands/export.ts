// `clab export`: a saved run as a Chrome/Perfetto trace, its results table as CSV or JSON, or its
// sweeps as nccl-tests writes them with -J.
import { InvalidArgumentError, Option } from 'commander';
import { resultsCsv, resultsJson, writeChromeTrace } from '../../../shared/export/index.js';
import { NcclTestsExportError, writeNcclTestsJson } from '../../../shared/export/nccl-tests-json.js';
import type { RunRecord } from '../../../shared/run/record/record.js';
import { inertJson, visibleControls } from '../../../shared/data/control-chars.js';
import { checkWritable, writeFileAtomicChunks } from '../../core/ground/atomic-file.js';
import { readRecord } from '../../core/library/record-store.js';
import { EXIT_OK, reportUsageError, type RegisterCommand } from '../common.js';

const EXPORT_FORMATS = ['chrome-trace', 'csv', 'json', 'nccl-tests-json'] as const;
type ExportFormat = (typeof EXPORT_FORMATS)[number];

interface ExportFlags {
  format: ExportFormat;
  output?: string;
  sweep?: number;
}

/** Each format's text, handed to `write` a chunk at a time: a trace of a large run is streamed, never held whole. */
const EXPORTERS: Record<ExportFormat, (record: RunRecord, write: (chunk: string) => void, flags: ExportFlags) => void> = {
  'chrome-trace': (r, write) => writeChromeTrace(r, write),
  csv: (r, write) => write(resultsCsv(r)),
  json: (r, write) => write(`${JSON.stringify(resultsJson(r), null, 2)}\n`),
  'nccl-tests-json': (r, write, flags) => writeNcclTestsJson(r, write, flags.sweep),
};

/** On stdout (a terminal, maybe) the record's text is made inert as every printed line is (common.ts); a file gets it as it is. */
const INERT: Record<ExportFormat, (text: string) => string> = {
  'chrome-trace': inertJson,
  // Rows end in CRLF (RFC 4180); a CR inside a field is shown like any other control character.
  csv: (text) => text.split('\r\n').map(visibleControls).join('\r\n'),
  json: inertJson,
  'nccl-tests-json': inertJson,
};

const sweepNumber = (v: string) => {
  const n = Number(v);
  if (!/^\d{1,6}$/.test(v) || !Number.isInteger(n)) throw new InvalidArgumentError('expected a sweep number (0, 1, …)');
  return n;
};

function exportCommand(file: string, flags: ExportFlags): number {
  try {
    // What stands at the output path is checked before the record is read and converted.
    if (flags.output !== undefined) checkWritable(flags.output);
    const record = readRecord(file);
    const exporter = EXPORTERS[flags.format];
    if (flags.output !== undefined) writeFileAtomicChunks(flags.output, (write) => exporter(record, write, flags));
    else exporter(record, (chunk) => process.stdout.write(INERT[flags.format](chunk)), flags);
    return EXIT_OK;
  } catch (e) {
    // What the exporter found missing is said of the record it read.
    if (e instanceof NcclTestsExportError) e.message = `${file}: ${e.message}`;
    return reportUsageError(e);
  }
}

export const registerExport: RegisterCommand = (program, setExit) => {
  program
    .command('export')
    .description(
      "Write a saved run as a Chrome trace (Perfetto UI, chrome://tracing), its results table as CSV or JSON, or its sweeps as nccl-tests' -J JSON.",
    )
    .argument('<run>', 'a *.run.json file')
    .addOption(new Option('--format <format>', 'what to write').choices(EXPORT_FORMATS).makeOptionMandatory())
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .option('--sweep <n>', "nccl-tests-json: this sweep alone (its number in the run's plan, from 0)", sweepNumber)
    .action((file: string, flags: ExportFlags) => setExit(exportCommand(file, flags)));
};
