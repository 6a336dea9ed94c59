import { describe, expect, it } from 'vitest';
import { involves } from '../../../../src/shared/plan/compile';
import { compiled } from './scenario';

describe('compute step', () => {
  it('multiplies in float16 on every rank unless told otherwise, whatever the defaults say', () => {
    const { plan } = compiled([{ op: 'compute', m: 2, n: 3, k: 4 }], { defaults: { dtype: 'float32' } });
    expect(plan?.steps[0].action).toEqual({ kind: 'compute', dtype: 'float16', m: 2, n: 3, k: 4, ranks: null });
    expect([0, 1, 2, 3].every((r) => involves(plan!.steps[0].action, r))).toBe(true);
  });

  it('runs on the ranks it lists only, each checked against the world at its index', () => {
    const { plan } = compiled([{ op: 'compute', m: 2, n: 2, k: 2, ranks: [1, 3], dtype: 'bfloat16' }]);
    expect([0, 1, 2, 3].map((r) => involves(plan!.steps[0].action, r))).toEqual([false, true, false, true]);
    expect(compiled([{ op: 'compute', m: 2, n: 2, k: 2, ranks: [1, 5] }]).error).toBe(
      'steps[0].ranks[1]: rank 5 does not exist in a world of 4 ranks (expected 0…3)',
    );
  });
});
