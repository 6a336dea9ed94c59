// Integration: step mode on real cpu rank processes. Each rank waits before each step until the
// core says next; the learner's time counts against no step's timeout; a stop while paused ends
// every rank.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LabRun } from '../../../src/main/core/run/run';
import { PROTOCOL_VERSION } from '../../../src/shared/run/rank/protocol';
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

  it('announces a pause once the ranks that take no part in the rest have finished', async () => {
    // Rank 1 has nothing after the all_reduce: it leaves while ranks 0 and 2 wait before the send.
    const run = stepRun(
      [
        { op: 'all_reduce', count: 3 },
        { op: 'send', from: 0, to: 2, count: 3 },
      ],
      3,
    );
    const pauses: number[] = [];
    run.on('paused', ({ step }) => {
      pauses.push(step);
      run.next();
    });
    const record = await run.run();
    expect(record.status).toBe('passed');
    expect(pauses).toEqual([0, 1]);
  });

  it('announces the pause when the last rank still running leaves rather than pauses (stand-in ranks)', async () => {
    const loaded = parseScenarioText(
      JSON.stringify({
        version: 1,
        name: 'late leaver',
        world: { ranks: 3 },
        steps: [
          { op: 'all_reduce', count: 3 },
          { op: 'send', from: 0, to: 2, count: 3 },
        ],
      }),
      'inline.scenario.json',
    );
    const run = new LabRun({
      plan: compileLoaded(loaded),
      backend: 'cpu',
      scenario: loaded.raw,
      scenarioFile: null,
      stepMode: true,
      workerEntry: path.resolve('test/fixtures/workers/step-mode-rank.cjs'),
      // Rank 1 has no part in the send; its done comes 400 ms after ranks 0 and 2 wait before it.
      env: { ...process.env, CLAB_TEST_PROTOCOL_VERSION: String(PROTOCOL_VERSION), CLAB_TEST_LATE_RANK: '1', CLAB_TEST_LATE_MS: '400' },
    });
    const pauses: number[] = [];
    run.on('paused', ({ step }) => {
      pauses.push(step);
      run.next();
    });
    const record = await run.run();
    expect(record.error).toBeNull();
    expect(pauses).toEqual([0, 1]);
  });

  it('gives a step still in flight through a pause the paused time back (stand-in ranks)', async () => {
    const loaded = parseScenarioText(
      JSON.stringify({
        version: 1,
        name: 'in flight',
        world: { ranks: 2 },
        defaults: { timeoutMs: 300 },
        steps: [
          { op: 'all_reduce', count: 3 },
          { op: 'all_reduce', count: 3 },
        ],
      }),
      'inline.scenario.json',
    );
    const run = new LabRun({
      plan: compileLoaded(loaded),
      backend: 'cpu',
      scenario: loaded.raw,
      scenarioFile: null,
      stepMode: true,
      workerEntry: path.resolve('test/fixtures/workers/step-mode-rank.cjs'),
      // Step 0 ends only after the pause before step 1, which lasts longer than its 300 ms timeout.
      env: { ...process.env, CLAB_TEST_PROTOCOL_VERSION: String(PROTOCOL_VERSION), CLAB_TEST_HOLD_FIRST: '1' },
    });
    run.on('paused', ({ step }) => void sleep(step === 1 ? 800 : 0).then(() => run.next()));
    const record = await run.run();
    expect(record.error).toBeNull();
    expect(record.steps.map((s) => s.index)).toEqual([0, 1]);
  });

  it('a run not told next stays paused before its first step', async () => {
    const run = stepRun([{ op: 'all_reduce', count: 3 }], 2);
    const paused = new Promise<number>((resolve) => run.on('paused', ({ step }) => resolve(step)));
    const record = run.run();
    expect(await paused).toBe(0);
    await sleep(800);
    expect(run.pausedAt()).toBe(0);
    expect(run.snapshot()?.steps ?? []).toEqual([]);
    run.stop();
    expect((await record).status).toBe('aborted');
  });

  it('stop during a pause ends every rank process and leaves no shared memory behind', async () => {
    const before = new Set(shmSegments());
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
    expect(shmSegments().filter((s) => !before.has(s))).toEqual([]);
  });
});
