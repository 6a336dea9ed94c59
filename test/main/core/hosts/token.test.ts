import { chmodSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { proofHolds, proofMac, readToken, writeNewToken } from '../../../../src/main/core/hosts/token';

const dir = mkdtempSync(join(tmpdir(), 'clab-token-'));

describe("the run's token", () => {
  it('is written fresh, readable by its user alone, in a folder of its user alone', () => {
    const file = join(dir, 'tokens', 'run.token');
    const token = writeNewToken(file);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'tokens')).mode & 0o777).toBe(0o700);
    expect(readToken(file)).toBe(token);
    expect(writeNewToken(join(dir, 'tokens', 'other.token'))).not.toBe(token);
  });

  it('is refused from a file others can read, or an empty one', () => {
    const open = join(dir, 'open.token');
    writeFileSync(open, 'secret\n');
    chmodSync(open, 0o644);
    expect(() => readToken(open)).toThrow(`the token file ${open} is readable by others (mode 644); chmod 600 it`);
    const empty = join(dir, 'empty.token');
    writeFileSync(empty, '\n', { mode: 0o600 });
    expect(() => readToken(empty)).toThrow('is empty');
  });

  it("is proved by the nonce's HMAC, which another token, nonce or claim does not match", () => {
    const mac = proofMac('t1', 'nonce\n0\n2');
    expect(proofHolds('t1', 'nonce\n0\n2', mac)).toBe(true);
    expect(proofHolds('t2', 'nonce\n0\n2', mac)).toBe(false);
    expect(proofHolds('t1', 'nonce\n1\n2', mac)).toBe(false);
    expect(proofHolds('t1', 'nonce\n0\n2', mac.slice(0, 10))).toBe(false);
  });
});
