// A GEMM handed off to the copy-engine transfer it overlaps (native/nccl/gemm_handoff.h): the real
// class between two real threads, without CUDA (the test-only module's handoffPlay). Whether nccl
// takes this path at all (a copy engine ended by stream memory operations) needs GPUs: test:gpu's
// overlap runs and bench/gpu/overlap.sh.
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD_DIR, expectEnqueueOption } from './ranks';

interface Played {
  awaited: boolean;
  offered: boolean;
  outcome: string;
  launchedBy: 'transfer' | 'gemm' | 'nobody';
  error?: string;
  afterLineUpUs?: number;
  ms: number;
}
const hooks = createRequire(import.meta.url)(path.join(BUILD_DIR, 'clab_test_hooks.node')) as {
  handoffPlay(options: {
    handsOff?: boolean;
    sameStream?: boolean;
    gemmAfterMs?: number;
    boundMs?: number;
    transferFails?: boolean;
    launchThrows?: boolean;
    transferLate?: boolean;
    giveUpAfterMs?: number;
  }): Played;
};

describe('a GEMM handed off to the transfer it overlaps', () => {
  it('is launched by the transfer thread as it lines up, once the GEMM thread has offered it', () => {
    // The GEMM's thread comes 30 ms after the transfer's: the transfer waits for it before lining up.
    const played = hooks.handoffPlay({ gemmAfterMs: 30, boundMs: 1000 });
    expect(played).toMatchObject({ awaited: true, offered: true, outcome: 'launched', launchedBy: 'transfer' });
    expect(played.afterLineUpUs).toBeGreaterThanOrEqual(0);
    expect(played.ms).toBeGreaterThanOrEqual(30);
  });

  it('is launched by its own thread where nothing hands it off, with no wait', () => {
    const notHanded = hooks.handoffPlay({ handsOff: false, gemmAfterMs: 20 });
    expect(notHanded).toMatchObject({ awaited: false, offered: false, outcome: 'not offered', launchedBy: 'gemm' });
    // On the transfer's own stream the GEMM runs after it anyway: never offered.
    const sameStream = hooks.handoffPlay({ sameStream: true, boundMs: 50 });
    expect(sameStream).toMatchObject({ offered: false, launchedBy: 'gemm' });
  });

  it('launches itself when it comes after the transfer stopped waiting for it', () => {
    const played = hooks.handoffPlay({ gemmAfterMs: 120, boundMs: 20 });
    expect(played).toMatchObject({ awaited: false, offered: false, launchedBy: 'gemm' });
  });

  it('launches itself when the transfer fails before lining up', () => {
    const played = hooks.handoffPlay({ transferFails: true, gemmAfterMs: 10 });
    expect(played).toMatchObject({ offered: true, outcome: 'declined', launchedBy: 'gemm' });
  });

  it("gets the launch's error on its own thread", () => {
    const played = hooks.handoffPlay({ launchThrows: true });
    expect(played).toMatchObject({ offered: true, outcome: 'failed', launchedBy: 'nobody' });
    expect(played.error).toBe('cudaErrorLaunchFailure: cudaEventRecord failed (played)');
  });

  it('withdraws its offer when it gives up waiting (its ticket went by, or abort), and launches itself', () => {
    const played = hooks.handoffPlay({ transferLate: true, giveUpAfterMs: 40, boundMs: 200 });
    expect(played).toMatchObject({ awaited: true, offered: true, outcome: 'declined', launchedBy: 'gemm' });
  });

  it('refuses options out of bounds', () => {
    expect(() => hooks.handoffPlay({ boundMs: 5000 })).toThrow(/boundMs must be 0…2000 ms/);
  });

  it('is asked for by enqueue option gemmFollows, a boolean, which the cpu backend takes and ignores', async () => {
    await expectEnqueueOption('gemmFollows', true, [1, 'true', null], /^options\.gemmFollows must be a boolean/);
  });
});
