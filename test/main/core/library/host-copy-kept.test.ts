// The host copy rate kept across processes: measured once per host since it booted, and a kept
// figure that is not this host's, or not a plausible rate, is measured again.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keptHostCopyGBps, thisHostKey } from '../../../../src/main/core/library/host-copy-kept';
import { tempDir } from '../../../setup/temp-dirs';

const dir = tempDir('host-copy-kept');
const keptIn = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { key: string; gbps: number };

describe('the host copy rate kept across processes', () => {
  it("is the rate kept for this host since it booted, not measured again (this process's first)", () => {
    const file = join(dir, 'kept.json');
    writeFileSync(file, JSON.stringify({ key: thisHostKey(), gbps: 42.5 }));
    expect(keptHostCopyGBps(file)).toBe(42.5);
  });

  it("passes over a figure kept for another host, or one that is no rate, and keeps this host's", () => {
    for (const [name, kept] of [
      ['other-host.json', { key: 'elsewhere|cpu|2|1|boot', gbps: 1234 }],
      ['no-rate.json', { key: thisHostKey(), gbps: -1 }],
      ['not-json.json', null],
      ['none.json', undefined],
    ] as const) {
      const file = join(dir, name);
      if (kept !== undefined) writeFileSync(file, kept === null ? '{' : JSON.stringify(kept));
      // This process's rate stands once known (the first test's).
      expect(keptHostCopyGBps(file)).toBe(42.5);
      expect(keptIn(file)).toMatchObject({ key: thisHostKey(), gbps: 42.5 });
    }
  });
});
