// Who may use `clab serve`: a request must be addressed to this server (Host), come from its own
// page (Origin) and carry the token printed at start. The token makes a page on another site
// (or a rebound DNS name) unable to drive the lab, which can start processes on this machine.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';

export interface Refusal {
  status: 401 | 403 | 404 | 500 | 503;
  reason: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const WILDCARD = new Set(['0.0.0.0', '::']);

export const newToken = () => randomBytes(24).toString('base64url');

export const isLoopback = (host: string) => LOOPBACK.has(host);
export const isWildcard = (host: string) => WILDCARD.has(host);

/** How a host appears in a URL: IPv6 addresses in brackets. */
export const urlHost = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** The names this server answers to: the bound host, or every address of the machine when bound to all. */
export function hostNamesFor(host: string): string[] {
  if (!isWildcard(host)) return [host];
  const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
  return [hostname(), 'localhost', ...addresses];
}

function sameSecret(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export class AccessPolicy {
  private readonly origins: Set<string>;
  /** Cookies are shared by every port of a host, so the name carries the port. */
  readonly cookieName: string;

  constructor(
    readonly token: string,
    hostNames: string[],
    readonly port: number,
  ) {
    this.origins = new Set(hostNames.map((h) => `http://${urlHost(h)}:${port}`));
    this.cookieName = `clab_token_${port}`;
  }

  /** The Set-Cookie value that lets the page's own assets load without the token in their URLs. */
  sessionCookie(): string {
    return `${this.cookieName}=${this.token}; HttpOnly; SameSite=Strict; Path=/`;
  }

  private addressedHere(req: IncomingMessage): Refusal | null {
    if (!this.origins.has(`http://${req.headers.host ?? ''}`))
      return { status: 403, reason: `this server does not answer to host "${req.headers.host ?? ''}"` };
    return null;
  }

  /** A page or asset request: GET only, no foreign Origin, the token in the query or the cookie. */
  checkPage(req: IncomingMessage, url: URL): Refusal | null {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return { status: 403, reason: `${req.method} is not accepted; the API is on the WebSocket at /api` };
    const elsewhere = this.addressedHere(req);
    if (elsewhere) return elsewhere;
    const origin = req.headers.origin;
    if (origin !== undefined && !this.origins.has(origin)) return { status: 403, reason: `requests from ${origin} are refused` };
    if (!sameSecret(url.searchParams.get('token') ?? undefined, this.token) && !sameSecret(cookie(req, this.cookieName), this.token)) {
      return { status: 401, reason: 'Collective Lab needs its token: open the URL that `clab serve` printed' };
    }
    return null;
  }

  /** The API socket: the token in the query and an Origin of this server's own page, both required. */
  checkSocket(req: IncomingMessage, url: URL): Refusal | null {
    if (url.pathname !== '/api') return { status: 404, reason: 'the API socket is at /api' };
    const elsewhere = this.addressedHere(req);
    if (elsewhere) return elsewhere;
    if (!sameSecret(url.searchParams.get('token') ?? undefined, this.token)) return { status: 401, reason: 'the API socket needs ?token=' };
    const origin = req.headers.origin;
    if (origin === undefined || !this.origins.has(origin))
      return { status: 403, reason: `the API socket is refused to origin ${origin ?? '(none)'}` };
    return null;
  }

  /** Whether the request authenticated with the query token (and so should get the cookie). */
  hasQueryToken(url: URL): boolean {
    return sameSecret(url.searchParams.get('token') ?? undefined, this.token);
  }
}
