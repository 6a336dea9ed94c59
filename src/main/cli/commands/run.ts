// `clab run`: validate, run on rank processes, print results live, save the run record.
import { Option } from 'commander';
import { chooseBackend, type BackendRequest } from '../../core/backend.js';
import { checkWritable } from '../../core/atomic-file.js';
import { RecordCheckpoint } from '../../core/record-checkpoint.js';
import { defaultRecordPath, writeRecordAtomic } from '../../core/record-store.js';
import { LabRun } from '../../core/run.js';
import { compileLoaded } from '../../../shared/scenario/text.js';
import { loadScenarioFile } from '../../core/scenario-file.js';
import { EXIT_FAILED, EXIT_OK, err, out, rankCount, reportUsageError, type RegisterCommand } from '../common.js';
import { LiveReporter } from '../reporter.js';
interface RunFlags { backend?: BackendRequest; ranks?: number; out?: string; json?: boolean; verbose?: boolean }

async function runCommand(file: string, flags: RunFlags): Promise<number> {
  let loaded, plan, choice, path;
  const createdAt = new Date();
  try {
    loaded = loadScenarioFile(file);
    plan = compileLoaded(loaded, { ranks: flags.ranks });
    choice = chooseBackend(flags.backend ?? loaded.scenario.backend ?? 'auto', undefined, plan);
    // Where the record goes is checked before anything runs: nothing measured is lost at the end.
    path = flags.out ?? defaultRecordPath(loaded.scenario.name, createdAt);
    checkWritable(path);
  } catch (e) {
    return reportUsageError(e);
  }
  const run = new LabRun({ plan, backend: choice.backend, backendNote: choice.note, scenario: loaded.raw, scenarioFile: file, createdAt });
  const checkpoint = new RecordCheckpoint(run, path, 1000, (e) => err(`[lab] the run record could not be kept current: ${e.message}`));
  const reporter = new LiveReporter(plan, {
    tty: !flags.json && Boolean(process.stdout.isTTY),
    verbose: Boolean(flags.verbose),
    write: flags.json ? () => undefined : out,
    writeErr: err,
  });
  if (choice.note && !flags.json) err(`[lab] ${choice.note}`);
  run.on('log', (l) => reporter.log(l));
  run.on('step', (s) => reporter.step(s));
  const onSignal = (signal: NodeJS.Signals) => run.stop(`interrupted (${signal})`);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const record = await run.run();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  checkpoint.close();
  try {
    writeRecordAtomic(path, record);
  } catch (e) {
    err(`clab: the run record could not be written: ${(e as Error).message}`);
    return EXIT_FAILED;
  }
  if (flags.json) out(JSON.stringify(record));
  else {
    reporter.finish(record);
    out(`run record: ${path}`);
  }
  return record.status === 'passed' ? EXIT_OK : EXIT_FAILED;
}

export const registerRun: RegisterCommand = (program, setExit) => {
  program
    .command('run')
    .description('Run a scenario: every result checked, timed, and saved as a run record.')
    .argument('<file>', 'a *.scenario.json file')
    .addOption(new Option('--backend <backend>', 'where ranks run').choices(['auto', 'cpu', 'nccl']))
    .option('--ranks <n>', 'number of ranks (overrides the scenario\'s world)', rankCount)
    .option('--out <file>', 'where to write the run record (default runs/<name>-<time>.run.json)')
    .option('--json', 'print the run record as JSON instead of the report')
    .option('-v, --verbose', 'print every rank\'s log lines')
    .action(async (file: string, flags: RunFlags) => setExit(await runCommand(file, flags)));
};
