// The gates between pairs on real cpu rank processes: a rank outside the running pair that stops
// (SIGSTOP) or dies while idle ends the run with a message naming it and a step, in bounded time.
import { describe, expect, it } from 'vitest';
import { LabRun } from '../../../src/main/core/run/run';
import { compilePlan } from '../../../src/shared/plan/compile';
import type { StepRecord } from '../../../src/shared/run/record/record';
import { scenarioSchema } from '../../../src/shared/scenario/schema';
import { alive, shmSegments } from './leftovers';

const PAIR_TIMEOUT_MS = 1500;

/** A pairs run of 4 ranks that calls `act` with rank 3's pid once the pair 0→1, which rank 3 takes no part in, has run a step. */
async function pairsRunWithRank3(act: (pid: number) => void) {
  const scenario = scenarioSchema.parse({
    version: 1,
    name: 'gates',
    world: { ranks: 4 },
    defaults: { warmup: 0, iters: 1 },
    steps: [{ op: 'pairs', bytes: 64, timeoutMs: PAIR_TIMEOUT_MS, copy: false }],
  });
  // A stopped rank cannot leave on the abort: it is killed after the grace.
  const run = new LabRun({ plan: compilePlan(scenario), backend: 'cpu', scenario, scenarioFile: null, abortGraceMs: 500 });
  let pid = 0;
  run.on('step', (s: StepRecord) => {
    if (pid || s.origin.kind !== 'pairs' || s.origin.from !== 0 || s.origin.to !== 1) return;
    pid = run.workerPids()[3]!;
    act(pid);
  });
  const started = Date.now();
  const guard = setTimeout(() => run.stop('the test gave up waiting'), 30_000);
  try {
    const record = await run.run();
    return { record, ms: Date.now() - started, run, pid };
  } finally {
    clearTimeout(guard);
    if (pid && alive(pid)) process.kill(pid, 'SIGCONT');
  }
}

describe('gates between pairs', () => {
  it('fail the run, naming the rank that never reached the gate, when a rank outside the pair stops', async () => {
    const { record, ms, run, pid } = await pairsRunWithRank3((p) => process.kill(p, 'SIGSTOP'));
    expect(pid).toBeGreaterThan(0);
    expect(record.error).toMatchObject({ code: 'CLAB_GATE_TIMEOUT', rank: 3, step: expect.any(Number) });
    expect(record.error!.message).toMatch(
      /^rank 3 never reached the gate of step \d+ \(.+\) within 3500 ms, while ranks 0, 1, 2 waited there and no step ran/,
    );
    expect(ms).toBeLessThan(20_000);
    for (const p of run.workerPids()) expect(alive(p)).toBe(false);
    expect(shmSegments().filter((f) => run.workerPids().some((p) => f.includes(`-${p}-`)))).toEqual([]);
  }, 40_000);

  it('name a step when a rank outside the running pair is killed', async () => {
    const { record } = await pairsRunWithRank3((p) => process.kill(p, 'SIGKILL'));
    expect(record.error).toMatchObject({ code: 'CLAB_RANK_EXITED', rank: 3, step: expect.any(Number) });
    expect(record.error!.message).toMatch(/^rank 3 exited on signal SIGKILL (while waiting at the gate of|while idle, during) step \d+ \(/);
  }, 40_000);
});
