// Loops that waited for the host (loop-host.ts): which are called stalled, and what the record's
// readers print of them (step lines, sweep tables).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeLoopStall, loopStall, loopStalls } from '../../../../src/shared/run/rank/loop-host';
import { loopStallLines, sweepTable } from '../../../../src/shared/export/format';
import { summarizeStep } from '../../../../src/shared/run/record/aggregate';
import { compilePlan } from '../../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../../src/shared/scenario/schema';
import type { RankStepResult } from '../../../../src/shared/run/rank/protocol';

const rank = (r: number, timesUs: number[], loopUs?: number, issueUs?: number, faults = 0, preempted = 0, blocked = 0): RankStepResult => ({
  step: 0,
  rank: r,
  verdict: 'pass',
  checked: 1,
  wrong: 0,
  mismatches: [],
  output: null,
  timesUs,
  note: null,
  ...(loopUs !== undefined ? { loopUs } : {}),
  ...(issueUs !== undefined ? { loopHost: { issueUs, faults, blocked, preempted } } : {}),
});

// The stall of 2026-11-25 on one H100 (CLAB_DATA=host): 20 iterations of 26 µs, a loop of 26.4 ms.
const twenty = (us: number) => Array.from({ length: 20 }, () => us);

describe('loop stalls', () => {
  it('calls a loop stalled when it outlasted its iterations and the host issued it all along', () => {
    const s = loopStall(rank(1, twenty(26), 26362, 26300, 3, 1, 2));
    expect(s).toEqual({ rank: 1, calls: 20, loopUs: 26362, iterationsUs: 520, issueUs: 26300, faults: 3, blocked: 2, preempted: 1 });
    expect(describeLoopStall(s!)).toBe(
      "rank 1's loop waited for the host: issuing its 20 calls took 26.30 ms of the loop's 26.36 ms (the same iterations took 520.0 µs one by one; " +
        'while issuing, the thread took 3 page faults, blocked 2 times, preempted 1 time), so time and bandwidth from this loop measure the host',
    );
  });

  it("leaves alone loops of tiny ops, which are bound by issuing as nccl-tests' are", () => {
    // 1-rank all_reduce in place: 1.7 µs per iteration, 2.4 µs per op over the loop.
    expect(loopStall(rank(0, twenty(1.7), 48, 47))).toBeNull();
  });

  it('leaves alone a long loop the host had finished issuing early (the GPU, not the host, was slow)', () => {
    expect(loopStall(rank(0, twenty(26), 5000, 300))).toBeNull();
  });

  it("needs the host's side: records without it (cpu, older runs) never stall", () => {
    expect(loopStall(rank(0, twenty(26), 26362))).toBeNull();
    expect(loopStall(rank(0, twenty(26)))).toBeNull();
  });

  it('never calls a loop stalled that took no longer than 1.25 × its iterations or 100 µs more (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.5, max: 1e5, noNaN: true }), { minLength: 1, maxLength: 50 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 2, noNaN: true }),
        (times, extra, issueShare) => {
          const sum = times.reduce((a, b) => a + b, 0);
          const loopUs = sum + Math.min(extra * 0.25 * sum, extra * 100);
          expect(loopStall(rank(0, times, loopUs, issueShare * loopUs))).toBeNull();
        },
      ),
    );
  });

  it("shows up under the step's timing and as a note of its sweep table", () => {
    const plan = compilePlan(
      scenarioSchema.parse({
        version: 1,
        name: 's',
        world: { ranks: 2 },
        steps: [{ op: 'sweep', label: 'ag', collective: 'all_gather_into_tensor', minBytes: '32MiB', maxBytes: '32MiB', dtype: 'float32' }],
      }),
    );
    const step = summarizeStep(plan.steps[0], [rank(0, twenty(26), 560, 100), rank(1, twenty(26), 26362, 26300, 3, 0)], 2);
    expect(loopStalls(step.ranks).map((s) => s.rank)).toEqual([1]);
    expect(loopStallLines(step)).toEqual([
      expect.stringMatching(/^ {4}! rank 1's loop waited for the host: issuing its 20 calls took 26\.30 ms/),
    ]);
    const notes = sweepTable(plan, [step], 0).filter((l) => l.startsWith('#'));
    expect(notes.join(' ')).toMatch(/# at 32 MiB, rank 1's loop waited for the host/);
  });
});
