import { describe, expect, it } from 'vitest';
import {
  describeTimeLeft,
  formatWallTime,
  LARGE_ENOUGH,
  planWork,
  RunClock,
  timeLeft,
  type StepWork,
} from '../../../src/shared/results/time-left.js';
import type { Plan } from '../../../src/shared/plan/types.js';
import { allGather, buildRecord, sendRecv } from '../export/records.js';

/** Wall time of a step under costs a ms a run and b ms a byte. */
const wall = (w: StepWork, a: number, b: number) => a * w.runs + b * w.bytes * w.runs;

describe('time left', () => {
  it('says nothing before a step has ended', () => {
    const t = timeLeft([{ runs: 5, bytes: 8 }], [], 300);
    expect(t).toMatchObject({ leftMs: null, basis: 'nothing yet', stepsDone: 0, stepsTotal: 1, elapsedMs: 300 });
    expect(describeTimeLeft(t)).toBe('elapsed 0 s, estimating what is left');
  });

  it('estimates by steps alone while no step moved enough bytes to tell the rate', () => {
    const work = [
      { runs: 10, bytes: 8 },
      { runs: 10, bytes: 16 },
      { runs: 20, bytes: 32 },
    ];
    const t = timeLeft(work, [{ index: 0, wallMs: 100 }], 100);
    expect(t.basis).toBe('steps');
    expect(t.leftMs).toBeCloseTo(300);
    expect(t.bytesPerSecond).toBeNull();
  });

  it('finds the rate and the fixed cost once large steps ran, and counts the bytes left at that rate', () => {
    const [a, b] = [0.05, 1e-6];
    const work = [1, 2, 4, 8, 16, 32].map((m) => ({ runs: 25, bytes: m * LARGE_ENOUGH }));
    const done = work.slice(0, 4).map((w, index) => ({ index, wallMs: wall(w, a, b) }));
    const t = timeLeft(work, done, 1000);
    expect(t.basis).toBe('steps and bytes');
    expect(t.bytesPerSecond! / 1e9).toBeCloseTo(1, 6);
    expect(t.leftMs!).toBeCloseTo(wall(work[4], a, b) + wall(work[5], a, b), 6);
    expect(t.bytesDone).toBe(25 * 15 * LARGE_ENOUGH);
    expect(t.bytesTotal).toBe(25 * 63 * LARGE_ENOUGH);
  });

  it('never takes a negative cost from noisy times', () => {
    const work = [
      { runs: 10, bytes: LARGE_ENOUGH },
      { runs: 10, bytes: 2 * LARGE_ENOUGH },
      { runs: 10, bytes: 4 * LARGE_ENOUGH },
    ];
    // Slower for the smaller step: the interior fit has a negative rate.
    const t = timeLeft(
      work,
      [
        { index: 0, wallMs: 50 },
        { index: 1, wallMs: 30 },
      ],
      80,
    );
    expect(t.leftMs!).toBeGreaterThan(0);
    expect(t.bytesPerSecond).toBeNull();
    // A fit whose bytes cost nothing tells no rate: the estimate stays by steps, and says so.
    expect(t.basis).toBe('steps');
    expect(describeTimeLeft(t)).not.toMatch(/measured/);
  });

  it('counts a step reported twice or out of order once', () => {
    const work = [
      { runs: 1, bytes: 0 },
      { runs: 1, bytes: 0 },
      { runs: 1, bytes: 0 },
    ];
    const t = timeLeft(
      work,
      [
        { index: 2, wallMs: 10 },
        { index: 2, wallMs: 10 },
        { index: 7, wallMs: 5 },
      ],
      20,
    );
    expect(t.stepsDone).toBe(1);
    expect(t.leftMs).toBeCloseTo(20);
  });

  it("takes each plan step's runs and bytes from its action", () => {
    const plan = {
      world: 4,
      steps: [
        { warmup: 5, iters: 20, action: { kind: 'collective', op: 'all_reduce', count: 256, dtype: 'float32' } },
        { warmup: 0, iters: 1, action: { kind: 'barrier' } },
      ],
    } as unknown as Pick<Plan, 'steps' | 'world'>;
    expect(planWork(plan)).toEqual([
      { runs: 25, bytes: 1024 },
      { runs: 1, bytes: 0 },
    ]);
  });

  it("counts a group of sends as its record will: the busiest sender's bytes, not every rank's added up", () => {
    // The two ranks send at once, so a run takes as long as one side's 1 KiB, as algbw counts it.
    const record = buildRecord({
      world: 2,
      steps: [
        { label: 'exchange', action: { kind: 'group', items: [sendRecv(0, 1, 256), sendRecv(1, 0, 256)] }, timesUs: [[5], [5]] },
        { label: 'mixed', action: { kind: 'group', items: [allGather(2, 'float64'), sendRecv(0, 1, 4, 'float16')] }, timesUs: [[5], [5]] },
      ],
    });
    const work = planWork(record.plan);
    expect(work.map((w) => w.bytes)).toEqual([1024, 40]);
    expect(work.map((w) => w.bytes)).toEqual(record.steps.map((s) => s.bytes));
  });

  it('reads wall times as a person does', () => {
    expect(formatWallTime(12_400)).toBe('12 s');
    expect(formatWallTime(200_000)).toBe('3 min 20 s');
    expect(formatWallTime(3_900_000)).toBe('1 h 5 min');
  });
});

describe('the run clock', () => {
  it('gives each step the time since the one before, shared by steps that end together', () => {
    const work = Array.from({ length: 4 }, () => ({ runs: 1, bytes: 0 }));
    const clock = new RunClock(work, 1000);
    clock.stepsEnded([0], 1100);
    clock.stepsEnded([1, 2], 1300);
    const t = clock.estimate(1350);
    expect(t.elapsedMs).toBe(350);
    expect(t.stepsDone).toBe(3);
    expect(t.leftMs).toBeCloseTo(100);
  });
});
