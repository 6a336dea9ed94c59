// The run log's entries for a step: a loop that waited for the host gets its own line under the timing.
import { describe, expect, it } from 'vitest';
import { stepEntries } from '../../../src/renderer/src/run/log';
import { summarizeStep } from '../../../src/shared/run/record/aggregate';
import { compilePlan } from '../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../src/shared/scenario/schema';
import type { RankStepResult } from '../../../src/shared/run/rank/protocol';

const result = (rank: number, loopUs: number, issueUs: number): RankStepResult => ({
  step: 0,
  rank,
  verdict: 'pass',
  checked: 4,
  wrong: 0,
  mismatches: [],
  output: null,
  note: null,
  timesUs: Array.from({ length: 20 }, () => 26),
  loopUs,
  loopHost: { issueUs, faults: 1, blocked: 1, preempted: 0 },
});

describe('run log entries', () => {
  const plan = compilePlan(
    scenarioSchema.parse({
      version: 1,
      name: 'log',
      world: { ranks: 2 },
      defaults: { iters: 20 },
      steps: [{ op: 'all_gather_into_tensor', count: 8388608, label: 'ag' }],
    }),
  );

  it('adds a line for a loop that waited for the host, after the timing line', () => {
    const step = summarizeStep(plan.steps[0], [result(0, 540, 60), result(1, 57981, 57988)], 2);
    const entries = stepEntries(step, 0);
    const timing = entries.findIndex((e) => e.text.trimStart().startsWith('time '));
    expect(timing).toBeGreaterThan(-1);
    expect(entries[timing + 1]).toMatchObject({
      tone: 'timing',
      text: expect.stringContaining("rank 1's loop waited for the host: issuing its 20 calls took 57.99 ms"),
    });
    expect(entries.filter((e) => e.text.includes('waited for the host'))).toHaveLength(1);
  });

  it('has no such line when every loop kept up with its iterations', () => {
    const step = summarizeStep(plan.steps[0], [result(0, 540, 60), result(1, 545, 61)], 2);
    expect(stepEntries(step, 0).some((e) => e.text.includes('waited for the host'))).toBe(false);
  });
});
