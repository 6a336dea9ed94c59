// Where the lab says a rank was when it exited: a step every rank is in, begun by the others and
// not yet by it (the kill came first), is its step, not one "it takes no part in". Seen on CI under
// load: the launcher test's rank 1 was killed before its begin message reached the core.
import { describe, expect, it } from 'vitest';
import { LabRun } from '../../../src/main/core/run/run';
import { compilePlan } from '../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../src/shared/scenario/schema';

type Inside = {
  positions: { stepBegan(rank: number, step: number): void };
  whereIs(rank: number): { step: number | null; where: string };
};

function labRun(steps: unknown[], ranks: number): Inside {
  const scenario = scenarioSchema.parse({ version: 1, name: 'where', world: { ranks }, steps });
  return new LabRun({ plan: compilePlan(scenario), backend: 'cpu', scenario, scenarioFile: null }) as unknown as Inside;
}

describe('where a rank that exited was', () => {
  it('names the step every rank is in that the others began first, without "takes no part in"', () => {
    const run = labRun([{ op: 'all_reduce', count: 16 }], 2);
    run.positions.stepBegan(0, 0);
    const { step, where } = run.whereIs(1);
    expect(step).toBe(0);
    expect(where).toBe(' during step 0 (all_reduce), before it began it');
  });

  it('says "takes no part in" of a step the rank is not in', () => {
    const run = labRun([{ op: 'send', from: 0, to: 1, count: 16 }], 3);
    run.positions.stepBegan(0, 0);
    run.positions.stepBegan(1, 0);
    expect(run.whereIs(2).where).toMatch(/^ while idle, during step 0 \(.+\), which it takes no part in$/);
  });

  it("names the rank's own step where it began one", () => {
    const run = labRun([{ op: 'all_reduce', count: 16 }], 2);
    run.positions.stepBegan(0, 0);
    run.positions.stepBegan(1, 0);
    expect(run.whereIs(1)).toEqual({ step: 0, where: ' during step 0 (all_reduce)' });
  });
});
