import { describe, expect, it } from 'vitest';
import { compilePlan, PlanError } from '../../../src/shared/plan/compile';
import { rankAction, rankStep, takesPart } from '../../../src/shared/plan/per-rank';
import { scenarioSchema } from '../../../src/shared/scenario/schema';

const scenario = (steps: unknown[], ranks = 2) => scenarioSchema.parse({ version: 1, name: 't', world: { ranks }, steps });
const problems = (steps: unknown[], ranks = 2) => {
  try {
    compilePlan(scenario(steps, ranks));
  } catch (e) {
    if (e instanceof PlanError) return e.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw e;
  }
  return [];
};

describe('per-rank actions (deliberate mistakes)', () => {
  it('gives a rank its own collective, every other value taken from the step', () => {
    const plan = compilePlan(scenario([{ op: 'broadcast', count: 3, root: 0, perRank: { 1: { op: 'all_reduce' } }, expect: 'failure' }]));
    const [step] = plan.steps;
    expect(step.expect).toBe('failure');
    expect(rankAction(step, 0)).toMatchObject({ op: 'broadcast', count: 3 });
    expect(rankAction(step, 1)).toMatchObject({ kind: 'collective', op: 'all_reduce', count: 3, dtype: 'float32', redop: 'sum' });
    expect(rankStep(step, 0)).toBe(step);
    expect(rankStep(step, 1)).toMatchObject({ index: 0, action: { op: 'all_reduce' } });
  });

  it('overrides count, root and dtype for one rank only', () => {
    const plan = compilePlan(
      scenario([
        { op: 'all_reduce', count: 3, perRank: { 1: { count: 4, dtype: 'float16' } } },
        { op: 'broadcast', count: 3, perRank: { 0: { root: 1 } } },
      ]),
    );
    expect(rankAction(plan.steps[0], 1)).toMatchObject({ count: 4, dtype: 'float16' });
    expect(rankAction(plan.steps[0], 0)).toMatchObject({ count: 3, dtype: 'float32' });
    expect(rankAction(plan.steps[1], 0)).toMatchObject({ root: 1 });
    expect(rankAction(plan.steps[1], 1)).toMatchObject({ root: 0 });
  });

  it('a skipping rank takes no part; a recv from another peer moves who takes part', () => {
    const plan = compilePlan(
      scenario(
        [
          { op: 'send', from: 0, to: 1, count: 8, perRank: { 1: { skip: true } } },
          { op: 'send', from: 0, to: 1, count: 8, perRank: { 1: { from: 2 } } },
        ],
        3,
      ),
    );
    expect(rankAction(plan.steps[0], 1)).toBeNull();
    expect([0, 1, 2].map((r) => takesPart(plan.steps[0], r))).toEqual([true, false, false]);
    expect(rankAction(plan.steps[1], 1)).toMatchObject({ kind: 'p2p', from: 2, to: 1 });
    expect([0, 1, 2].map((r) => takesPart(plan.steps[1], r))).toEqual([true, true, false]);
  });

  it('steps without overrides compile as before (no perRank, no expect in the plan)', () => {
    const [step] = compilePlan(scenario([{ op: 'all_reduce', count: 3 }])).steps;
    expect(step).not.toHaveProperty('perRank');
    expect(step).not.toHaveProperty('expect');
    expect(step.action).not.toHaveProperty('read');
  });

  it('checks an override like a step: a rank outside the world, a count that does not divide, a peer that is itself', () => {
    expect(problems([{ op: 'all_reduce', count: 3, perRank: { 5: { count: 4 } } }])).toEqual([
      'steps.0.perRank.5: rank 5 does not exist in a world of 2 ranks (expected 0…1)',
    ]);
    expect(problems([{ op: 'reduce_scatter', count: 4, perRank: { 1: { op: 'all_to_all_single', count: 3 } } }])[0]).toMatch(
      /^steps\.0\.perRank\.1\.count: /,
    );
    expect(problems([{ op: 'send', from: 0, to: 1, count: 2, perRank: { 1: { from: 1 } } }])).toEqual([
      'steps.0.perRank.1.to: a rank cannot send to itself (from and to are both 1)',
    ]);
  });

  it('read "rank-slice" is for reduce_scatter and scatter out of place', () => {
    const [step] = compilePlan(scenario([{ op: 'reduce_scatter', count: 3, read: 'rank-slice' }])).steps;
    expect(step.action).toMatchObject({ op: 'reduce_scatter', read: 'rank-slice' });
    expect(problems([{ op: 'all_reduce', count: 3, read: 'rank-slice' }])).toEqual([
      'steps.0.read: "rank-slice" reads one slice of an output as large as the input: it applies to reduce_scatter and scatter, out of place',
    ]);
    expect(problems([{ op: 'reduce_scatter', count: 3, inPlace: true, read: 'rank-slice' }])).toHaveLength(1);
  });

  it('refuses override keys that are not rank numbers or not overridable', () => {
    expect(
      scenarioSchema.safeParse({
        version: 1,
        name: 't',
        world: { ranks: 2 },
        steps: [{ op: 'all_reduce', count: 3, perRank: { one: { count: 4 } } }],
      }).success,
    ).toBe(false);
    expect(
      scenarioSchema.safeParse({
        version: 1,
        name: 't',
        world: { ranks: 2 },
        steps: [{ op: 'all_reduce', count: 3, perRank: { 1: { iters: 4 } } }],
      }).success,
    ).toBe(false);
  });
});
