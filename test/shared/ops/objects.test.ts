// The object collectives on 2–8 ranks: what each rank must hold, from one value per rank, and a
// list that does not give one per rank refused, so a check can tell a right delivery from a wrong one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OBJECT_DESCRIPTORS, objectOfRank, type Json } from '../../../src/shared/ops/objects';
import { compilePlan } from '../../../src/shared/plan/compile';
import { compileLoaded, parseScenarioText } from '../../../src/shared/plan/text';
import { scenarioSchema } from '../../../src/shared/scenario/schema';

const worlds = [2, 3, 4, 5, 6, 7, 8];
const allInOne = parseScenarioText(readFileSync('scenarios/all-in-one.scenario.json', 'utf8'), 'all-in-one.scenario.json');

describe('object collectives on 2–8 ranks', () => {
  it('all-in-one compiles on the worlds it names (2, 3, 4 and 6 ranks)', () => {
    for (const world of [2, 3, 4, 6]) expect(() => compileLoaded(allInOne, { ranks: world })).not.toThrow();
  });

  it.each(worlds)(
    "all-in-one's object steps on %i ranks: every rank's scattered and gathered values are its own, none repeated",
    (world) => {
      const objectSteps = allInOne.scenario.steps.filter((s) => s.op.endsWith('_object'));
      const plan = compilePlan(scenarioSchema.parse({ version: 1, name: 'objects', world: { ranks: world }, steps: objectSteps }));
      const steps = plan.steps.flatMap((s) => (s.action.kind === 'object' ? [s.action] : []));
      expect(steps.map((a) => a.op)).toEqual(['broadcast_object', 'all_gather_object', 'gather_object', 'scatter_object']);
      for (const a of steps) {
        const objectOf = (rank: number) => objectOfRank(a.objects as Json[] | null, rank);
        const expected = Array.from({ length: world }, (_, rank) =>
          JSON.stringify(OBJECT_DESCRIPTORS[a.op].expected(objectOf, world, rank, a.root)),
        );
        if (a.op === 'scatter_object') expect(new Set(expected).size).toBe(world);
        if (a.op === 'all_gather_object')
          expect(new Set((JSON.parse(expected[0]) as Json[]).map((o) => JSON.stringify(o))).size).toBe(world);
      }
    },
  );

  it('a list of 4 objects on 6 ranks is refused at its path, not repeated', () => {
    const scenario = scenarioSchema.parse({
      version: 1,
      name: 't',
      world: { ranks: 6 },
      steps: [{ op: 'scatter_object', objects: [{ for: 0 }, { for: 1 }, { for: 2 }, { for: 3 }] }],
    });
    expect(() => compilePlan(scenario)).toThrow(/objects.*4 values.*6 ranks/s);
  });

  it('one object for every rank, or exactly one per rank, compiles', () => {
    const scenario = (objects: Json[]) =>
      scenarioSchema.parse({ version: 1, name: 't', world: { ranks: 3 }, steps: [{ op: 'all_gather_object', objects }] });
    expect(() => compilePlan(scenario(['same']))).not.toThrow();
    expect(() => compilePlan(scenario(['a', 'b', 'c']))).not.toThrow();
    expect(objectOfRank(['same'], 2)).toBe('same');
    expect(objectOfRank(null, 2)).toEqual({ rank: 2 });
  });
});
