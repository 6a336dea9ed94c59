// Integration: step mode on real cpu rank processes. Each rank waits before each step until the
// core says next; the learner's time counts against no step's timeout; a stop while paused ends
// every rank. The other cases of step mode (a rank that leaves rather than pauses, a step in flight
// through a pause, a run never told next) are scripted against the coordinator, in-process
// (run/coordinator/coordinator.test.ts).
import { describe, expect, it } from 'vitest';
import { LabRun } from '../../../src/main/core/run/run';
import { compileLoaded, parseScenarioText } from '../../../src/shared/plan/text';
import { alive, shmSegments } from './leftovers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function stepRun(steps: unknown[], ranks: number) {
  const text = JSON.stringify({
    version: 1,
    name: 'step-mode',
    world: { ranks },
    defaults: { warmup: 0, iters: 1, timeoutMs: 400 },
    steps,
  });
  const loaded = parseScenarioText(text, 'inline.scenario.json');
  return new LabRun({ plan: compileLoaded(loaded), backend: 'cpu', scenario: loaded.raw, scenarioFile: null, stepMode: true });
}

describe('step mode', () => {
  it("pauses before every step, runs one step per next(), and counts no paused time against a step's timeout", async () => {
    const run = stepRun(
      [
        { op: 'broadcast', count: 3, root: 1 },
        { op: 'send', from: 0, to: 2, count: 2 },
        { op: 'all_reduce', count: 3 },
      ],
      4,
    );
    const ended: number[] = [];
    const pauses: { step: number; endedBefore: number[] }[] = [];
    run.on('step', (s) => ended.push(s.index));
    run.on('paused', ({ step }) => {
      pauses.push({ step, endedBefore: [...ended] });
      expect(run.pausedAt()).toBe(step);
      // Longer than every step's 400 ms timeout: the learner thinking is no step's time.
      void sleep(700).then(() => expect(run.next()).toBe(true));
    });
    expect(run.next()).toBe(false);
    const record = await run.run();
    expect(record.error).toBeNull();
    expect(record.status).toBe('passed');
    expect(pauses).toEqual([
      { step: 0, endedBefore: [] },
      { step: 1, endedBefore: [0] },
      { step: 2, endedBefore: [0, 1] },
    ]);
    // The send involves ranks 0 and 2 only; ranks 1 and 3 wait before the all_reduce meanwhile.
    expect(record.steps.map((s) => s.ranks.map((r) => r.rank).sort())).toEqual([
      [0, 1, 2, 3],
      [0, 2],
      [0, 1, 2, 3],
    ]);
    const root = record.steps[0].ranks.find((r) => r.rank === 1)!;
    expect(record.steps[0].ranks.map((r) => r.output)).toEqual(Array(4).fill(root.input));
  });

  it('stop during a pause ends every rank process and leaves no shared memory behind', async () => {
    const run = stepRun(
      [
        { op: 'all_reduce', count: 3 },
        { op: 'broadcast', count: 3 },
      ],
      3,
    );
    run.on('paused', ({ step }) => {
      if (step === 0) run.next();
      else run.stop();
    });
    const t0 = Date.now();
    const record = await run.run();
    expect(record.status).toBe('aborted');
    expect(record.error?.code).toBe('CLAB_STOPPED');
    expect(record.steps.map((s) => [s.index, s.verdict])).toEqual([[0, 'pass']]);
    expect(Date.now() - t0).toBeLessThan(5000);
    const pids = run.workerPids();
    expect(pids.filter((p) => p !== undefined)).toHaveLength(3);
    for (const pid of pids) expect(alive(pid)).toBe(false);
    // This run's segments only: another test file's run may be making its own meanwhile.
    expect(shmSegments().filter((s) => pids.some((pid) => s.startsWith(`clab-${pid}-`)))).toEqual([]);
  });
});
