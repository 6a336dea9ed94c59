// A loopback port that no listener holds now, for a test's core to --listen on. Asked of the system
// (port 0): two test files running at once (vitest.config.ts runs two) never draw the same one, as
// ports derived from each process's pid could.
import { createServer, type AddressInfo } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
