// The watchdog names the step where the ranks parted. Seen on CI under load: in the send-without-recv
// mistake, rank 1 (no part in step 0) reported step 1's start before rank 0 reported step 0's, so
// step 1 crossed its timeout first and the run blamed it. The watchdog reads no clock: each call
// says when it is (ms).
import { describe, expect, it } from 'vitest';
import { Watchdog } from '../../../../src/main/core/run/watchdog';
import { compilePlan } from '../../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../../src/shared/scenario/schema';

const TIMEOUT_MS = 1000;

function watchdog(firstTimeoutMs = TIMEOUT_MS, startTimeoutMs = 30_000): Watchdog {
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
  return new Watchdog(compilePlan(scenario), startTimeoutMs);
}

function joined(firstTimeoutMs = TIMEOUT_MS): Watchdog {
  const dog = watchdog(firstTimeoutMs);
  dog.join(0);
  dog.join(1);
  return dog;
}

const none = () => false;

describe('the watchdog', () => {
  it('names the earlier step when its start was reported after a later one', () => {
    const dog = joined();
    dog.stepBegan(1, 1, 0);
    dog.stepBegan(0, 0, 5);
    expect(dog.check(TIMEOUT_MS - 1, 0, none, none)).toBeNull();
    // step 1 is past its time by 2 ms, step 0 not yet (997 ms): step 0 is still where the ranks parted
    expect(dog.check(TIMEOUT_MS + 2, 0, none, none)).toMatchObject({ code: 'CLAB_TIMEOUT', step: 0 });
  });

  it('does not blame an earlier step with a longer timeout that began before the overdue one', () => {
    const dog = joined(5 * TIMEOUT_MS);
    dog.stepBegan(0, 0, 0);
    dog.stepBegan(1, 1, 10);
    expect(dog.check(TIMEOUT_MS + 11, 0, none, none)).toMatchObject({ step: 1 });
  });

  it('says nothing of finished steps', () => {
    const dog = joined();
    dog.stepBegan(1, 1, 0);
    dog.stepBegan(0, 0, 0);
    expect(dog.check(TIMEOUT_MS + 1, 0, (s) => s === 0, none)).toMatchObject({ step: 1 });
    expect(dog.check(TIMEOUT_MS + 1, 0, () => true, none)).toBeNull();
  });

  it('names the ranks that did not join within the start timeout', () => {
    const dog = watchdog(TIMEOUT_MS, 500);
    dog.join(1);
    expect(dog.check(500, 0, none, none)).toBeNull();
    expect(dog.check(501, 0, none, none)).toEqual({
      rank: 0,
      step: null,
      code: 'CLAB_START_TIMEOUT',
      message: 'rank 0 did not join the communicator within 500 ms',
    });
  });

  it("gives a paused step the learner's time back", () => {
    const dog = joined();
    dog.stepBegan(0, 1, 0);
    dog.giveBack(5000, none);
    expect(dog.check(5000 + TIMEOUT_MS, 0, none, none)).toBeNull();
    expect(dog.check(5001 + TIMEOUT_MS, 0, none, none)).toMatchObject({ step: 1 });
  });
});
