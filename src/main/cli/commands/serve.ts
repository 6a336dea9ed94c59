// `clab serve`: the desktop app's UI in a browser, with the same lab behind it.
import { join } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { LabService, UNATTENDED_PAUSE_MS } from '../../core/service/lab-service.js';
import { findPackageRoot } from '../../core/ground/package-root.js';
import { NOT_BUILT } from '../../serve/renderer-files.js';
import { DEFAULT_HOST, PREFERRED_PORT, startLabServer } from '../../serve/server.js';
import { err, EXIT_OK, out, reportUsageError, type RegisterCommand } from '../common.js';

interface ServeFlags {
  host: string;
  port?: number;
  runs: string;
}

const portNumber = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535');
  return n;
};

async function serveCommand(flags: ServeFlags): Promise<number> {
  const service = new LabService({ runsDir: flags.runs });
  let server;
  try {
    server = await startLabServer(service, { host: flags.host, port: flags.port, rendererDir: join(findPackageRoot(), 'out', 'renderer') });
  } catch (e) {
    return reportUsageError(e);
  }
  if (!server.loopback)
    err(`clab serve: warning: listening on ${flags.host}, reachable from other machines; anyone with the URL can run processes here`);
  if (!server.rendererBuilt) err(`clab serve: ${NOT_BUILT}`);
  const closed = new Promise<void>((resolve) => {
    let closing = false;
    const shutdown = (signal: NodeJS.Signals) => {
      // A second Ctrl+C while runs are stopping is ignored rather than leaving rank processes behind.
      if (closing) return;
      closing = true;
      err(`clab serve: ${signal}: stopping runs and closing`);
      void service
        .dispose()
        .then(() => server.close())
        .then(resolve);
    };
    process.on('SIGINT', shutdown);
    process.on('SIGTERM', shutdown);
  });
  // Printed once the signals are handled: whoever reads this line may stop the server at once.
  out(`Collective Lab serving at ${server.url}`);
  await closed;
  return EXIT_OK;
}

export const registerServe: RegisterCommand = (program, setExit) => {
  program
    .command('serve')
    .description(
      `Serve the lab's UI to a browser on this machine: prints a URL with a token made when it starts (good until it stops; the page keeps it in a cookie). A run paused in step mode is stopped ${UNATTENDED_PAUSE_MS / 60_000} minutes after the last page goes away.`,
    )
    .option('--host <host>', 'address to listen on (anything but loopback exposes the lab to the network)', DEFAULT_HOST)
    .option(
      '--port <port>',
      `port to listen on, 0 for any free one (default ${PREFERRED_PORT}, or a free one when it is taken)`,
      portNumber,
    )
    .option('--runs <dir>', 'where run records are saved and listed', 'runs')
    .action(async (flags: ServeFlags) => setExit(await serveCommand(flags)));
};
