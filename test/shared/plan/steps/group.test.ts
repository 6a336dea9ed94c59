import { describe, expect, it } from 'vitest';
import { compiled } from './scenario';

const send = (from: number, to: number, extra: object = {}) => ({ op: 'send', from, to, count: 4, ...extra });

describe('group step', () => {
  it('issues its items together in one step, collectives and transfers alike, labelled by how many', () => {
    const { plan } = compiled([{ op: 'group', steps: [send(0, 1), send(1, 0), { op: 'all_reduce', count: 8 }] }]);
    expect(plan?.steps).toHaveLength(1);
    const action = plan!.steps[0].action;
    expect(plan!.steps[0].label).toBe('group(3)');
    expect(action.kind === 'group' && action.items.map((i) => i.kind)).toEqual(['p2p', 'p2p', 'collective']);
  });

  it('says in its label how many items a copy engine moves', () => {
    const label = (steps: unknown[], transport?: string) =>
      compiled([{ op: 'group', steps, ...(transport ? { transport } : {}) }]).plan?.steps[0].label;
    expect(label([send(0, 1), send(1, 0)], 'copy-engine')).toBe('group(2, copy engine)');
    expect(label([send(0, 1, { transport: 'copy-engine' }), send(1, 0)])).toBe('group(2, 1 by copy engine)');
    expect(label([send(0, 1, { transport: 'nccl' }), send(1, 0)], 'copy-engine')).toBe('group(2, 1 by copy engine)');
  });

  it("checks each item like a step of its own, at the item's path", () => {
    const { error } = compiled([{ op: 'group', steps: [send(0, 0), { op: 'broadcast', count: 4, root: 6 }] }]);
    expect(error).toBe(
      'steps[0].steps[0].to: a rank cannot send to itself (from and to are both 0)\nsteps[0].steps[1].root: rank 6 does not exist in a world of 4 ranks (expected 0…3)',
    );
  });
});
