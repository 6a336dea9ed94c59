// `clab run`: validate, run on rank processes, print results live, save the run record.
import { InvalidArgumentError, Option } from 'commander';
import { parseAddress } from '../../../shared/run/hosts/launcher-env.js';
import type { RemoteRequest } from '../../core/hosts/remote-run.js';
import { runSucceeded } from '../../../shared/results/expectation.js';
import type { BackendRequest } from '../../core/machine/backend.js';
import { keepPackedForLaterOpens } from '../../core/library/saved-runs.js';
import { loadScenarioFile } from '../../core/library/scenario-file.js';
import { ScenarioFileError, type FileProblem } from '../../../shared/plan/text.js';
import { nowNs, processStartNs } from '../../core/ground/clock.js';
import { prepareRun, type PreparedRun } from '../../core/service/start-run.js';
import { timeToAnswer, timeToAnswerLine } from '../../../shared/run/record/time-to-answer.js';
import { writesPacked } from '../../../shared/run/record/record-file.js';
import { EXIT_FAILED, EXIT_OK, err, out, outJson, rankCount, reportUsageError, reportWarnings, type RegisterCommand } from '../common.js';
import { LiveReporter } from '../reporter.js';
import { lessonLines, type Lesson } from '../../../shared/learn/lessons.js';
import { promptSteps } from '../step-prompt.js';
import { AB_REPEATS_DEFAULT, repeatCount, runAbCommand } from './run-ab.js';
import { cpuAlikeNote } from '../../../shared/results/nccl-settings.js';
import { coreTrace } from '../../core/run/trace.js';
interface RunFlags {
  backend?: BackendRequest;
  ranks?: number;
  out?: string;
  json?: boolean;
  verbose?: boolean;
  step?: boolean;
  listen?: string;
  tokenFile?: string;
  launch?: string;
  joinTimeout?: number;
  /** Once: the library the ranks load; twice: an A/B of the two (run-ab.ts). */
  nccl?: string[];
  repeats?: number;
}

const seconds = (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || n > 86_400) throw new InvalidArgumentError('expected seconds, more than 0 and at most 86400');
  return n;
};

/** --listen, --launch, --token-file, --join-timeout: ranks from a launcher (no --listen: --launch listens on a free loopback port). */
function remoteOf(flags: RunFlags): RemoteRequest | undefined {
  if (flags.listen === undefined && flags.launch === undefined) {
    if (flags.tokenFile !== undefined || flags.joinTimeout !== undefined)
      throw new Error('--token-file and --join-timeout go with --listen or --launch');
    return undefined;
  }
  if (flags.listen !== undefined) parseAddress(flags.listen, '127.0.0.1');
  return {
    listen: flags.listen ?? '127.0.0.1:0',
    tokenFile: flags.tokenFile,
    launch: flags.launch,
    joinTimeoutMs: flags.joinTimeout === undefined ? undefined : flags.joinTimeout * 1000,
  };
}

async function runCommand(file: string, flags: RunFlags): Promise<number> {
  const libraries = flags.nccl ?? [];
  if (libraries.length > 1) {
    const alone = (['step', 'listen', 'launch'] as const).filter((f) => flags[f] !== undefined).map((f) => `--${f}`);
    return runAbCommand(file, libraries, { ...flags, alone });
  }
  if (flags.repeats !== undefined) return reportUsageError(new Error('--repeats goes with --nccl twice (an A/B of two NCCL libraries)'));
  let prepared: PreparedRun;
  let lesson: Lesson | null;
  let said: readonly FileProblem[] = [];
  try {
    const loaded = loadScenarioFile(file);
    // Warnings (a duplicate key) do not stop a run; they are said first.
    reportWarnings(loaded.warnings);
    said = loaded.warnings;
    lesson = loaded.scenario.lesson ?? null;
    prepared = prepareRun({
      loaded,
      scenarioFile: file,
      ranks: flags.ranks,
      backend: flags.backend,
      recordPath: flags.out,
      stopOnSignals: true,
      stepMode: Boolean(flags.step),
      remote: remoteOf(flags),
      ncclLibrary: libraries[0],
      askedNs: processStartNs(),
      onCheckpointError: (e) => err(`[lab] the run record could not be kept current: ${e.message}`),
    });
  } catch (e) {
    // A plan's problems come with the file's warnings, said above already.
    return reportUsageError(e instanceof ScenarioFileError ? new ScenarioFileError(e.problems.filter((p) => !said.includes(p))) : e);
  }
  const { run, plan, backend } = prepared;
  const reporter = new LiveReporter(plan, {
    tty: !flags.json && Boolean(process.stdout.isTTY),
    verbose: Boolean(flags.verbose),
    write: flags.json ? () => undefined : out,
    writeErr: err,
  });
  if (backend.note && !flags.json) err(`[lab] ${backend.note}`);
  // Before the run, not only in its summary: a run of NCCL's settings side by side on cpu compares nothing.
  const alike = cpuAlikeNote(plan, backend.backend);
  if (alike && !flags.json) err(`[lab] ${alike}`);
  run.on('log', (l) => reporter.log(l));
  // Where to start the workers, who joined: said as it comes (in --verbose the log says it already).
  if (!flags.verbose) run.on('notice', (text) => err(`[lab] ${text}`));
  run.on('step', (s) => reporter.step(s));
  const release = flags.step
    ? promptSteps(run, { input: process.stdin, terminal: Boolean(process.stdin.isTTY), write: flags.json ? err : out })
    : null;
  const { record, savedTo, saveError, ranksGone } = await prepared.start().finally(() => release?.());
  // The verdict is said whether or not the record could be saved: the run happened.
  if (flags.json) outJson(JSON.stringify(record));
  else {
    reporter.finish(record);
    if (lesson) for (const line of lessonLines(lesson)) out(line);
    if (savedTo) out(`run record: ${savedTo}`);
  }
  // A large run's JSON record is packed for the app's next open of it, as the app packs the runs
  // it saves (a packed record file opens as it lies).
  if (savedTo && !writesPacked(record)) await keepPackedForLaterOpens(savedTo, (message) => err(`clab: ${message}`));
  // The last line: where the time went, up to now (on stderr beside --json's record).
  (flags.json ? err : out)(timeToAnswerLine(timeToAnswer(record, nowNs())));
  // CLAB_TRACE: from the answer to the process's end (its event loop drained, then its exit).
  coreTrace('answered');
  if (process.env.CLAB_TRACE) process.once('exit', () => coreTrace('exiting'));
  // The answer came once every rank was done; clab ends once their processes have too.
  await ranksGone;
  coreTrace('every rank process ended');
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
    .option('--ranks <n>', "number of ranks (overrides the scenario's world)", rankCount)
    .option('--out <file>', 'where to write the run record (default runs/<name>-<time>.run.json)')
    .option('--json', 'print the run record as JSON instead of the report')
    .option('-v, --verbose', "print every rank's log lines")
    .option(
      '--nccl <path>',
      "the NCCL library the ranks load, e.g. a PyTorch wheel's nvidia/nccl/lib/libnccl.so.2 (default: CLAB_NCCL_LIBRARY, else the loader's libnccl.so.2); twice (--nccl A --nccl B): run the scenario on each in turn and print B/A per step, with --out the A/B's folder",
      (path: string, earlier: string[] | undefined) => [...(earlier ?? []), path],
    )
    .option(
      '--repeats <n>',
      `with --nccl twice: how many runs per library, taking turns A B, B A, … (default ${AB_REPEATS_DEFAULT})`,
      repeatCount,
    )
    .option('--step', "pause before each step, print it with each rank's input, and run it on Enter (a line on stdin)")
    .option(
      '--listen <[host:]port>',
      'ranks from a launcher: wait for `clab worker`s to join here (host 127.0.0.1 unless named) and print how to start them',
    )
    .option(
      '--launch <launcher>',
      'start the workers with this launcher (e.g. "mpirun -np 8 -H a,b"); `clab worker --connect … --token-file …` is appended',
    )
    .option('--token-file <file>', "the run's token, readable by its user alone (default: a fresh one in ~/.clab/tokens/)")
    .option('--join-timeout <seconds>', 'how long the ranks may take to join (default 120)', seconds)
    .action(async (file: string, flags: RunFlags) => setExit(await runCommand(file, flags)));
};
