// `clab`: run, validate, replay, export, compare and explain from a terminal; `clab worker` is a rank a launcher starts. A thin front door to the lab core;
// each command lives in commands/ and registers itself here.
import { Command } from 'commander';
import { LINK_VERSION } from '../../shared/run/hosts/hosts.js';
import { PROTOCOL_VERSION } from '../../shared/run/rank/protocol.js';
import { packageVersion } from '../core/ground/package-root.js';
import { EXIT_OK, EXIT_USAGE, tolerateClosedPipes, type RegisterCommand } from './common.js';
import { registerCompare } from './commands/compare.js';
import { registerDoctor } from './commands/doctor.js';
import { registerExplain } from './commands/explain.js';
import { registerExport } from './commands/export.js';
import { registerImport } from './commands/import.js';
import { registerReplay } from './commands/replay.js';
import { registerRun } from './commands/run.js';
import { registerServe } from './commands/serve.js';
import { registerValidate } from './commands/validate.js';
import { registerWorker } from './commands/worker.js';

const COMMANDS: RegisterCommand[] = [
  registerRun,
  registerValidate,
  registerReplay,
  registerExport,
  registerImport,
  registerCompare,
  registerExplain,
  registerServe,
  registerDoctor,
  registerWorker,
];

export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('clab')
    .description('Collective Lab: run, check and measure collective communication on GPUs (NCCL) or CPU ranks.')
    .showHelpAfterError()
    // What a worker and a core must share to join (hosts.ts): said with the package's version.
    .version(`clab ${packageVersion()} (link ${LINK_VERSION}, rank protocol ${PROTOCOL_VERSION})`, '-V, --version', 'print the version')
    // Set before the commands are added so that they inherit it: usage errors exit with 2.
    .exitOverride((e) => {
      process.exitCode = e.exitCode === 0 ? 0 : EXIT_USAGE;
      throw e;
    });
  for (const register of COMMANDS) register(program, setExit);
  return program;
}

/** For bin/clab.cjs: an error that escaped every command is printed by the same rule as every line. */
export { visibleControls } from '../../shared/data/control-chars.js';
/** For bin/clab.cjs: `clab run`'s ranks it started while this bundle loaded (bin/early-ranks.cjs). */
export { offerEarlyRanks } from '../core/run/early-ranks.js';

export async function main(argv = process.argv): Promise<void> {
  let code = EXIT_OK;
  tolerateClosedPipes();
  const program = buildProgram((c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if ((e as { code?: string }).code?.startsWith('commander.')) return;
    throw e;
  }
  process.exitCode = code;
}
