// The run's token: random, kept in a file readable by its user alone. Each end of a link proves it
// holds it with an HMAC over both ends' nonces (session.ts), so the token itself never crosses the
// network; a token too short to resist guessing is refused.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { clabHome } from '../ground/clab-home.js';
import { dirname, join } from 'node:path';

export const newNonce = (): string => randomBytes(32).toString('hex');

/** Where a token made for a run goes: ~/.clab/tokens/<run>.token (CLAB_HOME over ~/.clab). */
export function defaultTokenPath(runId: string): string {
  return join(clabHome(), 'tokens', `${runId}.token`);
}

/** A fresh token written to `path`, mode 0600 (its folder 0700). */
export function writeNewToken(path: string): string {
  const token = randomBytes(32).toString('hex');
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return token;
}

/** The token in `path` (its first line); refused when empty or readable by others. */
export function readToken(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`the token file ${path} cannot be read: ${(e as Error).message}`, { cause: e });
  }
  const token = text.split('\n')[0].trim();
  if (!token) throw new Error(`the token file ${path} is empty`);
  const bits = tokenBits(token);
  if (bits < MIN_TOKEN_BITS)
    throw new Error(
      `the token in ${path} holds about ${bits} bits; at least ${MIN_TOKEN_BITS} are needed (clab makes 256-bit ones: 64 hex digits)`,
    );
  if ((statSync(path).mode & 0o077) !== 0)
    throw new Error(`the token file ${path} is readable by others (mode ${(statSync(path).mode & 0o777).toString(8)}); chmod 600 it`);
  return token;
}

/** The fewest bits of a token's secret: below this, guessing it offline from one proof seen on the wire is within reach. */
export const MIN_TOKEN_BITS = 128;

/**
 * A token's bits at most, from its alphabet and length: 4 a character for hex, 6 for base64, 6.5
 * for any printable text. A token of few distinct characters ("aaaa…") is no secret: 0.
 */
export function tokenBits(token: string): number {
  if (new Set(token).size < 8) return 0;
  const perCharacter = /^[0-9a-fA-F]+$/.test(token) ? 4 : /^[A-Za-z0-9+/_=-]+$/.test(token) ? 6 : 6.5;
  return Math.floor(token.length * perCharacter);
}

export const proofMac = (token: string, text: string): string => createHmac('sha256', token).update(text).digest('hex');

/** Whether `mac` is the HMAC of `text` under `token`, compared in constant time. */
export function proofHolds(token: string, text: string, mac: string): boolean {
  const expected = Buffer.from(proofMac(token, text), 'hex');
  const given = Buffer.from(mac, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
