// `clab run`: validate, run on rank processes, print results live, save the run record.
import { Option } from 'commander';
import { runSucceeded } from '../../../shared/results/expectation.js';
import type { BackendRequest } from '../../core/backend.js';
import { loadScenarioFile } from '../../core/scenario-file.js';
import { prepareRun, type PreparedRun } from '../../core/start-run.js';
import { EXIT_FAILED, EXIT_OK, err, out, outJson, rankCount, reportUsageError, reportWarnings, type RegisterCommand } from '../common.js';
import { LiveReporter } from '../reporter.js';
import { lessonLines, type Lesson } from '../../../shared/learn/lessons.js';
import { promptSteps } from '../step-prompt.js';
interface RunFlags { backend?: BackendRequest; ranks?: number; out?: string; json?: boolean; verbose?: boolean; step?: boolean }

async function runCommand(file: string, flags: RunFlags): Promise<number> {
  let prepared: PreparedRun;
  let lesson: Lesson | null = null;
  try {
    const loaded = loadScenarioFile(file);
    // Warnings (a duplicate key) do not stop a run; they are said first.
    reportWarnings(loaded.warnings);
    lesson = loaded.scenario.lesson ?? null;
    prepared = prepareRun({
      loaded, scenarioFile: file, ranks: flags.ranks, backend: flags.backend, recordPath: flags.out,
      stopOnSignals: true, stepMode: Boolean(flags.step), onCheckpointError: (e) => err(`[lab] the run record could not be kept current: ${e.message}`),
    });
  } catch (e) {
    return reportUsageError(e);
  }
  const { run, plan, backend } = prepared;
  const reporter = new LiveReporter(plan, {
    tty: !flags.json && Boolean(process.stdout.isTTY),
    verbose: Boolean(flags.verbose),
    write: flags.json ? () => undefined : out,
    writeErr: err,
  });
  if (backend.note && !flags.json) err(`[lab] ${backend.note}`);
  run.on('log', (l) => reporter.log(l));
  run.on('step', (s) => reporter.step(s));
  const release = flags.step ? promptSteps(run, { input: process.stdin, terminal: Boolean(process.stdin.isTTY), write: flags.json ? err : out }) : null;
  const { record, savedTo, saveError } = await prepared.start().finally(() => release?.());
  // The verdict is said whether or not the record could be saved: the run happened.
  if (flags.json) outJson(JSON.stringify(record));
  else {
    reporter.finish(record);
    if (lesson) for (const line of lessonLines(lesson)) out(line);
    if (savedTo) out(`run record: ${savedTo}`);
  }
  if (saveError) {
    err(`clab: the run record could not be written to ${prepared.recordPath}: ${saveError.message}`);
    return EXIT_FAILED;
  }
  return runSucceeded(record) ? EXIT_OK : EXIT_FAILED;
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
    .option('--step', 'pause before each step, print it with each rank\'s input, and run it on Enter (a line on stdin)')
    .action(async (file: string, flags: RunFlags) => setExit(await runCommand(file, flags)));
};
