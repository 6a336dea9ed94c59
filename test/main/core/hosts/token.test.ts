import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listenScope } from '../../../../src/main/core/hosts/remote-run';
import { MIN_TOKEN_BITS, proofHolds, proofMac, readToken, tokenBits, writeNewToken } from '../../../../src/main/core/hosts/token';

const dir = mkdtempSync(join(tmpdir(), 'clab-token-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the run's token", () => {
  it('is written fresh, readable by its user alone, in a folder of its user alone', () => {
    const file = join(dir, 'tokens', 'run.token');
    const token = writeNewToken(file);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenBits(token)).toBe(256);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'tokens')).mode & 0o777).toBe(0o700);
    expect(readToken(file)).toBe(token);
    expect(writeNewToken(join(dir, 'tokens', 'other.token'))).not.toBe(token);
  });

  it('is refused from a file others can read, or an empty one', () => {
    const open = join(dir, 'open.token');
    writeFileSync(open, '0123456789abcdef0123456789abcdef\n');
    chmodSync(open, 0o644);
    expect(() => readToken(open)).toThrow(`the token file ${open} is readable by others (mode 644); chmod 600 it`);
    const empty = join(dir, 'empty.token');
    writeFileSync(empty, '\n', { mode: 0o600 });
    expect(() => readToken(empty)).toThrow('is empty');
  });

  it(`is refused under ${MIN_TOKEN_BITS} bits, with one line`, () => {
    const cases: [string, number][] = [
      ['0123456789abcdef'.repeat(2), 128],
      ['0123456789abcdef'.repeat(2).slice(0, 31), 124],
      ['secret', 0],
      ['a'.repeat(64), 0],
      ['Zm9vYmFyYmF6cXV4MTIzNDU2', 144],
      ['correct horse battery', 136],
    ];
    for (const [token, bits] of cases) {
      expect(tokenBits(token)).toBe(bits);
      const file = join(dir, 'short.token');
      writeFileSync(file, `${token}\n`, { mode: 0o600 });
      if (bits >= MIN_TOKEN_BITS) expect(readToken(file)).toBe(token);
      else
        expect(() => readToken(file)).toThrow(
          `the token in ${file} holds about ${bits} bits; at least 128 are needed (clab makes 256-bit ones: 64 hex digits)`,
        );
    }
  });

  it('is proved by an HMAC, which another token or text does not match', () => {
    const mac = proofMac('t1', 'nonce\n0\n2');
    expect(proofHolds('t1', 'nonce\n0\n2', mac)).toBe(true);
    expect(proofHolds('t2', 'nonce\n0\n2', mac)).toBe(false);
    expect(proofHolds('t1', 'nonce\n1\n2', mac)).toBe(false);
    expect(proofHolds('t1', 'nonce\n0\n2', mac.slice(0, 10))).toBe(false);
  });
});

describe('the start lines', () => {
  it('say who can reach the listener', () => {
    expect(listenScope('127.0.0.1')).toBe('this host only');
    expect(listenScope('::1')).toBe('this host only');
    expect(listenScope('[::1]')).toBe('this host only');
    expect(listenScope('0.0.0.0')).toBe('every network of this host: workers on other hosts may join');
    expect(listenScope('10.0.0.1')).toBe('the network of 10.0.0.1: workers on other hosts may join');
  });
});
