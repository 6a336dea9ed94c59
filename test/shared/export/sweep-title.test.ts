// nccl-tests prints each size's out-of-place and in-place halves side by side; a clab sweep
// measures one of them, and its table says which.
import { describe, expect, it } from 'vitest';
import { sweepTable, sweepTitle } from '../../../src/shared/export/format';
import { compilePlan } from '../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../src/shared/scenario/schema';

const plan = compilePlan(
  scenarioSchema.parse({
    version: 1,
    name: 't',
    world: { ranks: 2 },
    steps: [
      { op: 'sweep', collective: 'all_reduce', minBytes: 8, maxBytes: 64 },
      { op: 'sweep', collective: 'all_gather', minBytes: 8, maxBytes: 64 },
      { op: 'sweep', collective: 'all_reduce', minBytes: 8, maxBytes: 64, inPlace: false },
      { op: 'sweep', collective: 'send', minBytes: 8, maxBytes: 64 },
    ],
  }),
);

describe("a sweep table says which half of nccl-tests' table it is", () => {
  it('in-place or out-of-place, as the sweep ran, and nothing for sends', () => {
    expect(sweepTitle(plan, 0)).toMatch(/^# all_reduce sweep \(steps\[0\]\), 2 ranks, in-place: nccl-tests' right half/);
    expect(sweepTitle(plan, 1)).toMatch(/, out-of-place: nccl-tests' left half/);
    expect(sweepTitle(plan, 2)).toMatch(/, out-of-place: nccl-tests' left half/);
    expect(sweepTitle(plan, 3)).toBe('# send sweep (steps[3]), 2 ranks');
    expect(sweepTable(plan, [], 0)[0]).toBe(sweepTitle(plan, 0));
  });
});

describe('a sweep table says how its loop was launched', () => {
  it('graph-launched where the sweep asked, host-launched beside one, and nothing where no step is graph-launched', () => {
    const both = compilePlan(
      scenarioSchema.parse({
        version: 1,
        name: 't',
        world: { ranks: 2 },
        backend: 'nccl',
        steps: [
          { op: 'sweep', collective: 'all_reduce', minBytes: 8, maxBytes: 64, launch: 'graph' },
          { op: 'sweep', collective: 'all_reduce', minBytes: 8, maxBytes: 64 },
        ],
      }),
    );
    expect(sweepTitle(both, 0)).toMatch(
      /, in-place: .*, graph-launched: time is one CUDA graph replay of each size's iterations \(nccl-tests -G\)$/,
    );
    expect(sweepTitle(both, 1)).toMatch(/, host-launched: the CPU launches every op of the loop$/);
    expect(sweepTitle(plan, 0)).not.toMatch(/launched/);
  });
});
