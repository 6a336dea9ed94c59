// What a paused run says before each step, and which steps pause.
import { describe, expect, it } from 'vitest';
import { inputLength, rankInput } from '../../../../src/shared/run/rank/inputs';
import { pauseDescription, pausesBefore } from '../../../../src/shared/run/rank/step-mode';
import { compileLoaded, parseScenarioText } from '../../../../src/shared/plan/text';

const plan = compileLoaded(
  parseScenarioText(
    JSON.stringify({
      version: 1,
      name: 'pauses',
      world: { ranks: 3 },
      steps: [
        { op: 'reduce_scatter', count: 2, data: { kind: 'arange_rank', start: 1 } },
        { op: 'send', from: 2, to: 0, count: 3, data: { kind: 'constant', value: 7 } },
        { op: 'all_reduce', count: 1000 },
        {
          op: 'compare',
          label: 'overlap',
          repeat: 1,
          variants: [
            { name: 'a', steps: [{ op: 'barrier' }] },
            { name: 'b', steps: [{ op: 'barrier' }] },
          ],
        },
      ],
    }),
    'pauses.scenario.json',
  ),
);

describe('step mode', () => {
  it("says the step and each rank's input, as the rank fills it", () => {
    expect(pauseDescription(plan.steps[0], 3, plan.steps.length)).toBe(
      `step 1 of ${plan.steps.length}: reduce_scatter (sum, 2 × float32) · rank 0 [1, 2, 3, 4, 5, 6] · rank 1 [2, 3, 4, 5, 6, 7] · rank 2 [3, 4, 5, 6, 7, 8]`,
    );
  });

  it("gives a send's input on the sender only, and counts what is too long to show", () => {
    expect(pauseDescription(plan.steps[1], 3, 4)).toBe('step 2 of 4: send/recv 2→0 (rank 2 → rank 0, 3 × float32) · rank 2 [7, 7, 7]');
    expect([0, 1, 2].map((r) => inputLength(plan.steps[1], r, 3))).toEqual([0, 0, 3]);
    expect(rankInput(plan.steps[2], 0, 3)).toBeNull();
    expect(pauseDescription(plan.steps[2], 3, 4)).toContain('rank 0 1000 elements');
  });

  it('pauses before every step but those of a compare block, whose time a pause would spoil', () => {
    expect(plan.steps.filter((s) => s.origin.kind === 'compare').length).toBeGreaterThan(2);
    expect(plan.steps.filter(pausesBefore).map((s) => s.label)).toEqual(['reduce_scatter', 'send/recv 2→0', 'all_reduce']);
  });
});
