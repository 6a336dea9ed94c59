import { describe, expect, it } from 'vitest';
import { involves } from '../../../../src/shared/plan/compile';
import { compiled, twoVariants } from './scenario';

describe('barrier step', () => {
  it('is one step every rank takes, on the stream it names, with its own label or "barrier"', () => {
    const { plan } = compiled([{ op: 'barrier' }, { op: 'barrier', stream: 'sync', label: 'line up', iters: 3 }]);
    expect(plan?.steps.map((s) => [s.label, s.stream, s.iters, s.action.kind])).toEqual([
      ['barrier', 0, 1, 'barrier'],
      ['line up', 1, 3, 'barrier'],
    ]);
    expect([0, 1, 2, 3].every((r) => involves(plan!.steps[0].action, r))).toBe(true);
  });

  it("is labelled with its variant's name inside a compare block, and runs on the run's communicator", () => {
    const { plan } = compiled([twoVariants([{ op: 'barrier' }])]);
    const barriers = plan!.steps.filter((s) => s.action.kind === 'barrier');
    expect(barriers.map((s) => s.label)).toEqual(['a: barrier', 'b: barrier']);
    expect(barriers.map((s) => s.path)).toEqual(['steps[0].variants[0].steps[0]', 'steps[0].variants[1].steps[0]']);
    expect(barriers.every((s) => s.comm === undefined)).toBe(true);
  });
});
