// β of the α-β model on the cpu backend: a host memory copy, timed once per process and kept in
// the record's environment of cpu runs only.
import { describe, expect, it } from 'vitest';
import { collectEnvironment } from '../../../../src/main/core/machine/environment.js';
import { hostCopyGBps } from '../../../../src/main/core/machine/host-copy.js';

describe('the host copy rate', () => {
  it('is measured once per process, and kept in the environment of cpu runs only', async () => {
    const rate = hostCopyGBps();
    // Any machine that runs the lab copies faster than 0.1 GB/s and slower than 10 TB/s.
    expect(rate).toBeGreaterThan(0.1);
    expect(rate).toBeLessThan(1e4);
    // A second measurement would land on another rate to the last bit; the first is kept.
    expect(hostCopyGBps()).toBe(rate);
    expect((await collectEnvironment('cpu', null)).hostCopyGBps).toBe(rate);
    expect(await collectEnvironment('nccl', null, async () => null)).not.toHaveProperty('hostCopyGBps');
  });
});
