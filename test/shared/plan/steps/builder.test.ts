import { describe, expect, it } from 'vitest';
import { MAX_STREAMS } from '../../../../src/shared/plan/compile';
import { LIMITS } from '../../../../src/shared/scenario/limits';
import { compiled, twoVariants } from './scenario';

describe('what every step kind shares', () => {
  it(`numbers at most ${MAX_STREAMS} streams, refusing each one more at its path`, () => {
    const steps = Array.from({ length: MAX_STREAMS + 1 }, (_, i) => ({ op: 'barrier', stream: `s${i}` }));
    expect(compiled(steps.slice(0, MAX_STREAMS - 1)).plan?.streams).toHaveLength(MAX_STREAMS);
    expect(compiled(steps).error).toBe(
      `steps[${MAX_STREAMS - 1}].stream: at most ${MAX_STREAMS} streams may be named; "s${MAX_STREAMS - 1}" would be one more\n` +
        `steps[${MAX_STREAMS}].stream: at most ${MAX_STREAMS} streams may be named; "s${MAX_STREAMS}" would be one more`,
    );
  });

  it('resolves warmup, iters and timeout from the step, else the defaults, else 0, 1 and a minute', () => {
    const { plan } = compiled([{ op: 'barrier' }, { op: 'barrier', warmup: 2, iters: 3, timeoutMs: 4 }], {
      defaults: { iters: 5 },
    });
    expect(plan?.steps.map((s) => [s.warmup, s.iters, s.timeoutMs])).toEqual([
      [0, 5, 60_000],
      [2, 3, 4],
    ]);
  });

  it('reports a problem of a compare variant once, however many times its steps are expanded', () => {
    const { error } = compiled([twoVariants([{ op: 'broadcast', count: 4, root: 7 }], { repeat: 3, warmup: 2 })]);
    expect(error?.split('\n')).toEqual([
      'steps[0].variants[0].steps[0].root: rank 7 does not exist in a world of 4 ranks (expected 0…3)',
      'steps[0].variants[1].steps[0].root: rank 7 does not exist in a world of 4 ranks (expected 0…3)',
    ]);
  });

  it(`stops at ${LIMITS.planSteps} plan steps, naming the step that would go past them`, () => {
    const variants = Array.from({ length: LIMITS.compareVariants }, (_, i) => ({
      name: `v${i}`,
      steps: Array(10).fill({ op: 'barrier' }),
    }));
    const { error } = compiled([{ op: 'compare', repeat: LIMITS.compareRepeat, variants }]);
    expect(error).toMatch(
      new RegExp(`^steps\\[0\\]\\.variants\\[\\d+\\](\\.steps\\[\\d\\])?: the scenario expands into more than ${LIMITS.planSteps} steps`),
    );
  });
});
