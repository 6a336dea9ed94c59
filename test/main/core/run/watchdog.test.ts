// The watchdog names the step where the ranks parted. Seen on CI under load: in the send-without-recv
// mistake, rank 1 (no part in step 0) reported step 1's start before rank 0 reported step 0's, so
// step 1 crossed its timeout first and the run blamed it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Watchdog } from '../../../../src/main/core/run/watchdog';
import { compilePlan } from '../../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../../src/shared/scenario/schema';

const TIMEOUT_MS = 1000;

function watchdog(firstTimeoutMs = TIMEOUT_MS): Watchdog {
  const scenario = scenarioSchema.parse({
    version: 1,
    name: 'watchdog',
    world: { ranks: 2 },
    defaults: { timeoutMs: TIMEOUT_MS },
    steps: [
      { op: 'send', from: 0, to: 1, count: 16, perRank: { '1': { skip: true } }, timeoutMs: firstTimeoutMs },
      { op: 'all_reduce', count: 3 },
      { op: 'all_reduce', count: 3 },
    ],
  });
  const dog = new Watchdog(compilePlan(scenario), 30_000);
  dog.join(0);
  dog.join(1);
  return dog;
}

const none = () => false;

describe('the watchdog', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('names the earlier step when its start was reported after a later one', () => {
    const dog = watchdog();
    dog.stepBegan(1, 1);
    vi.advanceTimersByTime(5);
    dog.stepBegan(0, 0);
    vi.advanceTimersByTime(TIMEOUT_MS - 6);
    expect(dog.check(0, none, none)).toBeNull();
    vi.advanceTimersByTime(3);
    // step 1 is past its time by 2 ms, step 0 not yet (997 ms): step 0 is still where the ranks parted
    expect(dog.check(0, none, none)).toMatchObject({ code: 'CLAB_TIMEOUT', step: 0 });
  });

  it('does not blame an earlier step with a longer timeout that began before the overdue one', () => {
    const dog = watchdog(5 * TIMEOUT_MS);
    dog.stepBegan(0, 0);
    vi.advanceTimersByTime(10);
    dog.stepBegan(1, 1);
    vi.advanceTimersByTime(TIMEOUT_MS + 1);
    expect(dog.check(0, none, none)).toMatchObject({ step: 1 });
  });

  it('says nothing of finished steps', () => {
    const dog = watchdog();
    dog.stepBegan(1, 1);
    dog.stepBegan(0, 0);
    vi.advanceTimersByTime(TIMEOUT_MS + 1);
    expect(dog.check(0, (s) => s === 0, none)).toMatchObject({ step: 1 });
    expect(dog.check(0, () => true, none)).toBeNull();
  });
});
