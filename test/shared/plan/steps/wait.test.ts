import { describe, expect, it } from 'vitest';
import { compiled, twoVariants } from './scenario';

describe('wait step', () => {
  it('waits for an earlier async step by id, or for all pending ones, and is never async itself', () => {
    const { plan } = compiled([{ op: 'all_reduce', count: 4, async: true, id: 'r' }, { op: 'wait', id: 'r' }, { op: 'wait' }]);
    expect(plan?.steps.map((s) => [s.label, s.async, s.action])).toEqual([
      ['all_reduce', true, expect.objectContaining({ kind: 'collective' })],
      ['wait r', false, { kind: 'wait', id: 'r' }],
      ['wait', false, { kind: 'wait', id: null }],
    ]);
  });

  it('refuses an id no earlier async step has, at the path of the id', () => {
    const later = compiled([
      { op: 'wait', id: 'r' },
      { op: 'all_reduce', count: 4, async: true, id: 'r' },
    ]);
    expect(later.error).toBe('steps[0].id: no earlier async step has id "r"');
    expect(
      compiled([
        { op: 'all_reduce', count: 4, id: 'r' },
        { op: 'wait', id: 'r' },
      ]).error,
    ).toBe('steps[1].id: no earlier async step has id "r"');
  });

  it('sees only the async steps of its own run of a compare variant, where each run may use an id again', () => {
    const inside = [
      { op: 'all_reduce', count: 4, async: true, id: 'r' },
      { op: 'wait', id: 'r' },
    ];
    expect(compiled([twoVariants(inside, { repeat: 2, warmup: 1 })]).error).toBeNull();
    const outside = compiled([{ op: 'all_reduce', count: 4, async: true, id: 'r' }, twoVariants([{ op: 'wait', id: 'r' }])]);
    expect(outside.error).toBe(
      'steps[1].variants[0].steps[0].id: no earlier async step has id "r"\nsteps[1].variants[1].steps[0].id: no earlier async step has id "r"',
    );
  });

  it('refuses an async id used twice in one scope', () => {
    const twice = compiled([
      { op: 'all_reduce', count: 4, async: true, id: 'r' },
      { op: 'all_gather', count: 4, async: true, id: 'r' },
    ]);
    expect(twice.error).toBe('steps[1].id: async id "r" is already used by an earlier step');
  });
});
