// `clab serve`'s server in a process of its own over a given renderer folder and runs folder, for
// tests that watch its descriptors or limit them (ulimit -n): prints {"port","token"} on one line.
import { LabService } from '../../../src/main/core/service/lab-service';
import { startLabServer } from '../../../src/main/serve/server';

// templatesDir given: findPackageRoot() relies on the __dirname a bundle or vitest provides.
const service = new LabService({ runsDir: process.argv[3], templatesDir: 'scenarios' });
const server = await startLabServer(service, { port: 0, rendererDir: process.argv[2] });
process.stdout.write(`${JSON.stringify({ port: server.port, token: server.token })}\n`);
process.on(
  'SIGTERM',
  () =>
    void service
      .dispose()
      .then(() => server.close())
      .then(() => process.exit(0)),
);
