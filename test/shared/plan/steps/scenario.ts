import { compilePlan } from '../../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../../src/shared/scenario/schema';

/** A four-rank scenario of these steps, parsed as a file would be. */
export const scenario = (steps: unknown[], extra: object = {}) =>
  scenarioSchema.parse({ version: 1, name: 't', world: { ranks: 4 }, steps, ...extra });

/** The plan of these steps, or the compiler's error message. */
export function compiled(steps: unknown[], extra: object = {}) {
  try {
    return { plan: compilePlan(scenario(steps, extra)), error: null };
  } catch (e) {
    return { plan: null, error: (e as Error).message };
  }
}

/** A compare step of two variants with the same steps. */
export const twoVariants = (steps: unknown[], extra: object = {}) => ({
  op: 'compare',
  repeat: 1,
  warmup: 0,
  variants: [
    { name: 'a', steps },
    { name: 'b', steps },
  ],
  ...extra,
});
