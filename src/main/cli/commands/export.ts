// `clab export`: a saved run as a Chrome/Perfetto trace, its results table as CSV or JSON, its
// sweeps as nccl-tests writes them with -J, a report to share as one self-contained HTML file, or
// the record itself as plain JSON for other tools, whichever form its file has (JSON, or packed past
// 8192 events: src/shared/run/record/README.md).
import { InvalidArgumentError, Option } from 'commander';
import { resultsCsv, resultsJson, writeChromeTrace } from '../../../shared/export/index.js';
import { htmlReport } from '../../../shared/export/html-report.js';
import { NcclTestsExportError, writeNcclTestsJson } from '../../../shared/export/nccl-tests-json.js';
import type { RunRecord } from '../../../shared/run/record/record.js';
import { inertJson, visibleControls } from '../../../shared/data/control-chars.js';
import { checkWritable, writeFileAtomicChunks } from '../../core/ground/atomic-file.js';
import { readRecord } from '../../core/library/record-store.js';
import { EXIT_OK, reportUsageError, type RegisterCommand } from '../common.js';

interface ExportFlags {
  format: string;
  output?: string;
  sweep?: number;
}

interface Exporter {
  format: string;
  /** The format's text, handed to `write` a chunk at a time: a trace of a large run is streamed, never held whole. */
  write(record: RunRecord, write: (chunk: string) => void, flags: ExportFlags): void;
  /** On stdout (a terminal, maybe) the record's text is made inert as every printed line is (common.ts); a file gets it as it is. */
  inert(text: string): string;
}

const inertLines = (text: string) => text.split('\n').map(visibleControls).join('\n');

/** Events per chunk of a record's JSON: a record of 100 000 events is never one string, nor its events' text held whole. */
const EVENTS_PER_CHUNK = 4096;

/** The record as one plain JSON object, its events last (as clab writes a JSON record) and a chunk at a time. */
function writeRecordJson(record: RunRecord, write: (chunk: string) => void): void {
  const { events, ...rest } = record;
  write(`${JSON.stringify(rest).slice(0, -1)},"events":[`);
  for (let i = 0; i < events.length; i += EVENTS_PER_CHUNK)
    write(`${i ? ',' : ''}${JSON.stringify(events.slice(i, i + EVENTS_PER_CHUNK)).slice(1, -1)}`);
  write(']}\n');
}

/** One line a format. */
const EXPORTERS: readonly Exporter[] = [
  { format: 'chrome-trace', write: (r, write) => writeChromeTrace(r, write), inert: inertJson },
  // Rows end in CRLF (RFC 4180); a CR inside a field is shown like any other control character.
  { format: 'csv', write: (r, write) => write(resultsCsv(r)), inert: (text) => text.split('\r\n').map(visibleControls).join('\r\n') },
  { format: 'json', write: (r, write) => write(`${JSON.stringify(resultsJson(r), null, 2)}\n`), inert: inertJson },
  { format: 'nccl-tests-json', write: (r, write, flags) => writeNcclTestsJson(r, write, flags.sweep), inert: inertJson },
  { format: 'html', write: (r, write) => write(htmlReport(r)), inert: inertLines },
  { format: 'record-json', write: (r, write) => writeRecordJson(r, write), inert: inertJson },
];

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
    const exporter = EXPORTERS.find((e) => e.format === flags.format)!;
    if (flags.output !== undefined) writeFileAtomicChunks(flags.output, (write) => exporter.write(record, write, flags));
    else exporter.write(record, (chunk) => process.stdout.write(exporter.inert(chunk)), flags);
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
      "Write a saved run as a Chrome trace (Perfetto UI, chrome://tracing), its results table as CSV or JSON, its sweeps as nccl-tests' -J JSON, a self-contained HTML report (html), or the whole record as plain JSON (record-json), packed or not.",
    )
    .argument('<run>', 'a *.run.json file')
    .addOption(new Option('--format <format>', 'what to write').choices(EXPORTERS.map((e) => e.format)).makeOptionMandatory())
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .option('--sweep <n>', "nccl-tests-json: this sweep alone (its number in the run's plan, from 0)", sweepNumber)
    .action((file: string, flags: ExportFlags) => setExit(exportCommand(file, flags)));
};
