// A launcher's stop(): once the launcher has ended within its grace, no timer of that grace is
// left behind; a pending one kept clab's event loop, and so clab, alive for 3 s after every
// `clab run --launch`.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLauncher } from '../../../../src/main/core/hosts/launch.js';

afterEach(() => {
  vi.useRealTimers();
});

describe("a launcher's stop", () => {
  it('leaves no timer behind once the launcher ends within its grace', async () => {
    // Only the timers are faked: the launcher is a real process, whose exit ends the wait.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const ended: string[] = [];
    // Still running when stop() is called; ends by itself 0.2 s later, well within the 3 s grace.
    const launcher = startLauncher(
      'sleep',
      '0.2',
      () => undefined,
      (code) => ended.push(`exit ${code}`),
    );
    await launcher.stop();
    expect(ended).toEqual(['exit 0']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
