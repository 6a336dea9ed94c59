// `clab import`: results measured elsewhere, an nccl-tests text log or its -J JSON, saved as a
// record of the imported kind in the runs folder, so that replay, compare and the app's saved
// runs and sweep chart show them beside the lab's own runs.
import { randomBytes } from 'node:crypto';
import { InvalidArgumentError } from 'commander';
import { NCCL_TESTS_PROGRAMS, type NcclTestsProgram } from '../../../shared/results/nccl-tests-names.js';
import { readNcclTestsJson } from '../../../shared/results/nccl-tests-json-in.js';
import { readNcclTestsLog } from '../../../shared/results/nccl-tests-log.js';
import { importedRecord } from '../../../shared/results/nccl-tests-record.js';
import { NCCL_TESTS_LIMITS, NcclTestsReadError, type NcclTestsResults } from '../../../shared/results/nccl-tests-results.js';
import { checkWritable } from '../../core/ground/atomic-file.js';
import { readCapped } from '../../core/ground/read-capped.js';
import { defaultRecordPath, writeRecordAtomic } from '../../core/library/record-store.js';
import { EXIT_OK, out, reportUsageError, type RegisterCommand } from '../common.js';

interface ImportFlags {
  out?: string;
  runs: string;
  op?: NcclTestsProgram;
}

const program = (v: string): NcclTestsProgram => {
  if (!Object.hasOwn(NCCL_TESTS_PROGRAMS, v))
    throw new InvalidArgumentError(`expected one of ${Object.keys(NCCL_TESTS_PROGRAMS).join(', ')}`);
  return v as NcclTestsProgram;
};

/** The file's results: JSON where its first character opens an object, else a text log. */
function readResults(file: string, flags: ImportFlags): NcclTestsResults {
  const text = readCapped(file, { maxBytes: NCCL_TESTS_LIMITS.fileBytes, regularOnly: true }).toString('utf8');
  if (!text.trimStart().startsWith('{')) return readNcclTestsLog(file, text, { program: flags.op });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new NcclTestsReadError(`${file}: not JSON, as nccl-tests -J writes: ${(e as Error).message}`);
  }
  return readNcclTestsJson(file, json);
}

function importCommand(file: string, flags: ImportFlags): number {
  try {
    if (flags.out !== undefined) checkWritable(flags.out);
    const results = readResults(file, flags);
    const now = new Date();
    const record = importedRecord(results, { file, id: `imported-${randomBytes(8).toString('hex')}`, importedAt: now.toISOString() });
    const target = flags.out ?? defaultRecordPath(`${results.program}-imported`, now, flags.runs);
    writeRecordAtomic(target, record);
    const halves = record.plan.sweeps
      .map((sweep) => {
        const first = record.plan.steps.find((s) => s.origin.kind === 'sweep' && s.origin.sweep === sweep.index)?.action;
        return first?.kind === 'collective' && first.inPlace ? 'in-place' : 'out-of-place';
      })
      .join(' and ');
    out(
      `imported ${results.rows.length} size${results.rows.length === 1 ? '' : 's'} of ${results.program} (${halves}) on ${record.world} rank${record.world === 1 ? '' : 's'} from ${results.source}`,
    );
    out(`record: ${target}`);
    return EXIT_OK;
  } catch (e) {
    return reportUsageError(e);
  }
}

export const registerImport: RegisterCommand = (command, setExit) => {
  command
    .command('import')
    .description(
      "Read results from elsewhere (an nccl-tests log or its -J JSON) into a record beside the lab's runs, for replay and compare.",
    )
    .argument('<file>', "an nccl-tests program's output, or the file its -J wrote")
    .option('--out <file>', 'where to write the record (default runs/<program>-imported-<time>.run.json)')
    .option('--runs <dir>', 'the runs folder the record is saved in', 'runs')
    .option(
      '--op <program>',
      'for a log from before nccl-tests 2.14 (which did not name it): the program that printed it, e.g. all_reduce_perf',
      program,
    )
    .action((file: string, flags: ImportFlags) => setExit(importCommand(file, flags)));
};
