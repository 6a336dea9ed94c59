// The run's token: random, kept in a file readable by its user alone; workers prove they hold it
// by answering the core's nonce with an HMAC, so the token itself never crosses the network.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { clabHome } from '../clab-home.js';
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
  if ((statSync(path).mode & 0o077) !== 0)
    throw new Error(`the token file ${path} is readable by others (mode ${(statSync(path).mode & 0o777).toString(8)}); chmod 600 it`);
  return token;
}

export const proofMac = (token: string, text: string): string => createHmac('sha256', token).update(text).digest('hex');

/** Whether `mac` is the HMAC of `text` under `token`, compared in constant time. */
export function proofHolds(token: string, text: string, mac: string): boolean {
  const expected = Buffer.from(proofMac(token, text), 'hex');
  const given = Buffer.from(mac, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
