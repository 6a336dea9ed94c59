// `clab`: run, validate and replay scenarios from a terminal. A thin front door to the lab core.
import { Command, InvalidArgumentError, Option } from 'commander';
import { runReport, statusLine } from '../../shared/format.js';
import { worldSize } from '../../shared/plan/compile.js';
import { chooseBackend, type BackendRequest } from '../core/backend.js';
import { defaultRecordPath, readRecord, writeRecordAtomic } from '../core/record-store.js';
import { LabRun } from '../core/run.js';
import { compileLoaded, loadScenarioFile, ScenarioFileError } from '../core/scenario-file.js';
import { LiveReporter } from './reporter.js';

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

const positiveInt = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new InvalidArgumentError('expected a whole number of ranks from 1 to 64');
  return n;
};

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

function reportUsageError(e: unknown): number {
  if (e instanceof ScenarioFileError) {
    for (const p of e.problems) err(`${p.file}:${p.line}:${p.column}: error: ${p.path ? `${p.path}: ` : ''}${p.message}`);
    err(`${e.problems.length} problem${e.problems.length === 1 ? '' : 's'} found`);
  } else {
    err(`clab: ${(e as Error).message}`);
  }
  return EXIT_USAGE;
}

interface RunFlags { backend?: BackendRequest; ranks?: number; out?: string; json?: boolean; verbose?: boolean }

async function runCommand(file: string, flags: RunFlags): Promise<number> {
  let loaded, plan, choice;
  try {
    loaded = loadScenarioFile(file);
    plan = compileLoaded(loaded, { ranks: flags.ranks });
    choice = chooseBackend(flags.backend ?? loaded.scenario.backend ?? 'auto');
  } catch (e) {
    return reportUsageError(e);
  }
  const run = new LabRun({ plan, backend: choice.backend, backendNote: choice.note, scenario: loaded.raw, scenarioFile: file });
  const reporter = new LiveReporter(plan, {
    tty: !flags.json && Boolean(process.stdout.isTTY),
    verbose: Boolean(flags.verbose),
    write: flags.json ? () => undefined : out,
    writeErr: err,
  });
  if (choice.note && !flags.json) err(`[lab] ${choice.note}`);
  run.on('log', (l) => reporter.log(l));
  run.on('step', (s) => reporter.step(s));
  const onSignal = () => run.stop('interrupted (SIGINT)');
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const record = await run.run();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  const path = flags.out ?? defaultRecordPath(loaded.scenario.name, new Date(record.createdAt));
  writeRecordAtomic(path, record);
  if (flags.json) out(JSON.stringify(record));
  else {
    reporter.finish(record);
    out(`run record: ${path}`);
  }
  return record.status === 'passed' ? EXIT_OK : EXIT_FAILED;
}

function validateCommand(file: string, flags: { ranks?: number }): number {
  try {
    const loaded = loadScenarioFile(file);
    const plan = compileLoaded(loaded, { ranks: flags.ranks });
    out(`${file}: OK — "${loaded.scenario.name}", ${plan.steps.length} steps on ${worldSize(loaded.scenario, flags)} ranks`);
    return EXIT_OK;
  } catch (e) {
    return reportUsageError(e);
  }
}

function replayCommand(file: string, flags: { json?: boolean }): number {
  try {
    const record = readRecord(file);
    if (flags.json) {
      out(JSON.stringify(record));
      return EXIT_OK;
    }
    out(`# replay of ${record.scenarioFile ?? 'a run'} — recorded ${record.createdAt} on ${record.environment.host} (${record.environment.backend}, ${record.world} ranks)`);
    for (const line of runReport(record)) out(line);
    out(statusLine(record));
    return record.status === 'passed' ? EXIT_OK : EXIT_FAILED;
  } catch (e) {
    return reportUsageError(e);
  }
}

export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('clab')
    .description('Collective Lab: run, check and measure collective communication on GPUs (NCCL) or CPU ranks.')
    .showHelpAfterError();
  program
    .command('run')
    .description('Run a scenario: every result checked, timed, and saved as a run record.')
    .argument('<file>', 'a *.scenario.json file')
    .addOption(new Option('--backend <backend>', 'where ranks run').choices(['auto', 'cpu', 'nccl']))
    .option('--ranks <n>', 'number of ranks (overrides the scenario\'s world)', positiveInt)
    .option('--out <file>', 'where to write the run record (default runs/<name>-<time>.run.json)')
    .option('--json', 'print the run record as JSON instead of the report')
    .option('-v, --verbose', 'print every rank\'s log lines')
    .action(async (file: string, flags: RunFlags) => setExit(await runCommand(file, flags)));
  program
    .command('validate')
    .description('Check a scenario file; every problem is reported with file:line:column, JSON path and what was expected.')
    .argument('<file>', 'a *.scenario.json file')
    .option('--ranks <n>', 'check against this many ranks instead of the scenario\'s world', positiveInt)
    .action((file: string, flags: { ranks?: number }) => setExit(validateCommand(file, flags)));
  program
    .command('replay')
    .description('Print the results of a saved run without running anything.')
    .argument('<run>', 'a *.run.json file')
    .option('--json', 'print the validated record as JSON')
    .action((file: string, flags: { json?: boolean }) => setExit(replayCommand(file, flags)));
  return program;
}

export async function main(argv = process.argv): Promise<void> {
  let code = EXIT_OK;
  const program = buildProgram((c) => { code = c; });
  program.exitOverride((e) => {
    process.exitCode = e.exitCode === 0 ? 0 : EXIT_USAGE;
    throw e;
  });
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if ((e as { code?: string }).code?.startsWith('commander.')) return;
    throw e;
  }
  process.exitCode = code;
}
