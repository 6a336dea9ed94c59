import { describe, expect, it } from 'vitest';
import type { StepOrigin } from '../../../src/shared/plan/types.js';
import { runParts } from '../../../src/shared/results/run-parts.js';
import { allReduce, buildRecord } from '../export/records.js';

const sized = (size: number): StepOrigin => ({ kind: 'sweep', sweep: 0, size });
const pair = (from: number, to: number): StepOrigin => ({ kind: 'pairs', pairs: 0, from, to, both: false });

describe('runParts', () => {
  it('gives each sweep and pairs sweep once, at its first step, and every other step in the order it ran', () => {
    const origins: StepOrigin[] = [{ kind: 'step' }, sized(256), sized(1024), pair(0, 1), pair(1, 0), { kind: 'step' }];
    const record = buildRecord({
      world: 2,
      steps: origins.map((_, i) => ({ label: `step ${i}`, action: allReduce(64), timesUs: [[10], [10]] })),
    });
    // Only the steps' origins matter here: those of a plan with one sweep and one pairs sweep.
    record.steps.forEach((step, i) => (step.origin = origins[i]));
    const parts = runParts(record).map((p) =>
      p.kind === 'step' ? p.step.index : p.kind === 'sweep' ? `sweep ${p.sweep}` : `pairs ${p.pairs}`,
    );
    expect(parts).toEqual([0, 'sweep 0', 'pairs 0', 5]);
  });
});
