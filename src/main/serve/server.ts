// `clab serve`: the renderer and the lab API for a browser, on this machine only unless asked.
// node:http serves the built renderer; the API is a WebSocket at /api (see api-socket.ts);
// access.ts decides who may use either.
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { LabService } from '../core/service/lab-service.js';
import { AccessPolicy, hostNamesFor, isLoopback, isWildcard, newToken, urlHost, type Refusal } from './access.js';
import { createApiSocket } from './api-socket.js';
import { NOT_BUILT, RendererFiles } from './renderer-files.js';
import { RUN_DOWNLOAD_PATH, sendRun } from './run-download.js';

export const DEFAULT_HOST = '127.0.0.1';
/** Tried first so the URL stays the same between sessions; a random free port when it is taken. */
export const PREFERRED_PORT = 7878;

export interface ServeOptions {
  host?: string;
  /** Exactly this port (0 = any free one); absent = PREFERRED_PORT, else any free one. */
  port?: number;
  rendererDir: string;
}

export interface LabServer {
  /** The page to open, token included. */
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  readonly rendererBuilt: boolean;
  readonly loopback: boolean;
  close(): Promise<void>;
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

async function listenPreferred(server: Server, host: string, port: number | undefined): Promise<number> {
  if (port !== undefined) return listen(server, host, port);
  try {
    return await listen(server, host, PREFERRED_PORT);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    return listen(server, host, 0);
  }
}

function requestUrl(req: IncomingMessage): URL {
  return new URL(req.url ?? '/', 'http://request.invalid');
}

export async function startLabServer(service: LabService, options: ServeOptions): Promise<LabServer> {
  const host = options.host ?? DEFAULT_HOST;
  const files = new RendererFiles(options.rendererDir);
  const server = createServer();
  const port = await listenPreferred(server, host, options.port);
  const access = new AccessPolicy(newToken(), hostNamesFor(host), port);
  const api = createApiSocket(service);

  const refuse = (res: ServerResponse, { status, reason }: Refusal) => {
    res.writeHead(status, { ...files.securityHeaders(), 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(`${reason}\n`);
  };

  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const url = requestUrl(req);
    const refusal = access.checkPage(req, url);
    if (refusal) return refuse(res, refusal);
    if (access.hasQueryToken(url)) res.setHeader('Set-Cookie', access.sessionCookie());
    if (url.pathname === RUN_DOWNLOAD_PATH) return sendRun(res, service, url.searchParams.get('path'), files.securityHeaders());
    if (!files.built) return refuse(res, { status: 503, reason: `Collective Lab: ${NOT_BUILT}` });
    const file = files.resolve(url.pathname);
    if (!file) return refuse(res, { status: 404, reason: `${url.pathname} not found` });
    await files.send(res, file, req.method === 'HEAD');
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // A file that cannot be opened (EMFILE when out of descriptors, or gone since it was found)
    // is this request's failure, never the server's.
    answer(req, res).catch((e: NodeJS.ErrnoException) => {
      if (res.headersSent) return res.destroy();
      const path = requestUrl(req).pathname;
      if (e.code === 'EMFILE' || e.code === 'ENFILE')
        refuse(res, { status: 503, reason: 'the server has too many files open; try again shortly' });
      else if (e.code === 'ENOENT') refuse(res, { status: 404, reason: `${path} not found` });
      else refuse(res, { status: 500, reason: `cannot send ${path}: ${e.code ?? e.message}` });
    });
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const refusal = access.checkSocket(req, requestUrl(req));
    if (refusal) {
      socket.once('finish', () => socket.destroy());
      socket.end(
        `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${refusal.reason}\n`,
      );
      return;
    }
    api.sockets.handleUpgrade(req, socket, head, (ws) => api.sockets.emit('connection', ws, req));
  });

  // Bound to every address, the page is still opened here, by its loopback address.
  const origin = `http://${urlHost(isWildcard(host) ? DEFAULT_HOST : host)}:${port}`;
  return {
    url: `${origin}/?token=${access.token}`,
    origin,
    port,
    token: access.token,
    rendererBuilt: files.built,
    loopback: isLoopback(host),
    close: () =>
      new Promise<void>((resolve) => {
        api.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
