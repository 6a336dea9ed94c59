// The mistakes gallery (scenarios/mistakes/) on real cpu rank processes: each run ends within its
// step timeout with its diagnosis, counts as an expected failure seen, leaves each rank's steps in
// flight as open slices on its timeline and in the trace, and leaves no process and no /dev/shm
// segment behind.
import { describe, expect, it } from 'vitest';
import { LabRun } from '../../../src/main/core/run/run';
import { loadScenarioFile } from '../../../src/main/core/library/scenario-file';
import { runSucceeded } from '../../../src/shared/results/expectation';
import { resultLines } from '../../../src/shared/export/format';
import { compileLoaded } from '../../../src/shared/plan/text';
import { alive, shmSegments } from './leftovers';
import { chromeTrace, type CompleteEvent } from '../../../src/shared/export/chrome-trace';
import { traceRuleViolations } from '../../shared/export/trace-rules';
import type { RunRecord } from '../../../src/shared/run/record/record';

/** What each rank was doing when the run ended: its steps in flight as open slices, with its call. */
function openSlices(record: RunRecord): string[] {
  const open = record.events.filter((e) => e.phase === 'unfinished');
  for (const e of open) expect(e.endNs).toBeGreaterThanOrEqual(e.startNs);
  const trace = chromeTrace(record);
  expect(traceRuleViolations(trace)).toEqual([]);
  const slices = trace.traceEvents.filter((e): e is CompleteEvent => e.ph === 'X' && e.cat === 'unfinished');
  expect(slices.map((s) => `rank ${s.pid}: ${s.name}`).sort()).toEqual(open.map((e) => `rank ${e.rank}: ${e.name}`).sort());
  return open.map((e) => `rank ${e.rank} step ${e.step}: ${e.name}`).sort();
}

const TIMEOUT_MS = 3000;
/** Starting the ranks and ending them after an abort come on top of the step's timeout. */
const SLACK_MS = 5000;
/** A rank stuck in a call that never returns cannot leave on the abort: it is killed after this. */
const ABORT_GRACE_MS = 500;

async function runMistake(name: string) {
  const file = `scenarios/mistakes/${name}.scenario.json`;
  const loaded = loadScenarioFile(file);
  const plan = compileLoaded(loaded);
  expect(plan.steps.every((s) => s.timeoutMs === TIMEOUT_MS)).toBe(true);
  const run = new LabRun({ plan, backend: 'cpu', scenario: loaded.raw, scenarioFile: file, abortGraceMs: ABORT_GRACE_MS });
  const started = Date.now();
  const record = await run.run();
  expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + SLACK_MS);
  for (const pid of run.workerPids()) expect(alive(pid)).toBe(false);
  expect(shmSegments().filter((f) => run.workerPids().some((pid) => f.includes(`-${pid}-`)))).toEqual([]);
  expect(record.expectation).toMatchObject({ met: true });
  expect(record.expectation!.note).toMatch(/^expected failure seen: /);
  expect(runSucceeded(record)).toBe(true);
  return record;
}

const B12 = '3 × float32 = 12 B';

describe('the mistakes gallery on cpu ranks', () => {
  it("mismatched collective: the backend stops at once and both ranks' calls #2 are named", async () => {
    const record = await runMistake('mismatched-collective');
    expect(record.error).toMatchObject({ code: 'CLAB_INVALID_ARGUMENT', step: 0 });
    expect(record.error!.message).toContain(
      'collective mismatch: rank 0 called broadcast(float32, root 0, count 3) as its collective #2 but rank 1 called all_reduce(float32, sum, count 3)',
    );
    expect(record.error!.message).toContain(
      `[last calls entered: rank 0 broadcast(root 0, ${B12}, #2) in step 0; rank 1 all_reduce(sum, ${B12}, #2) in step 0]`,
    );
    expect(openSlices(record)).toEqual([
      `rank 0 step 0: broadcast on rank 0, all_reduce on rank 1 (unfinished: in broadcast(root 0, ${B12}, #2))`,
      `rank 1 step 0: broadcast on rank 0, all_reduce on rank 1 (unfinished: in all_reduce(sum, ${B12}, #2))`,
    ]);
  });

  it('mismatched count: 12 B against 16 B at the same call', async () => {
    const record = await runMistake('mismatched-count');
    expect(record.error!.message).toContain('collective mismatch');
    expect(record.error!.message).toContain(
      `rank 0 all_reduce(sum, ${B12}, #2) in step 0; rank 1 all_reduce(sum, 4 × float32 = 16 B, #2) in step 0`,
    );
  });

  it('mismatched dtype: float32 against float16 at the same call', async () => {
    const record = await runMistake('mismatched-dtype');
    expect(record.error!.message).toContain(
      `rank 0 all_reduce(sum, ${B12}, #2) in step 0; rank 1 all_reduce(sum, 3 × float16 = 6 B, #2) in step 0`,
    );
  });

  it('wrong root: each rank names the other as root', async () => {
    const record = await runMistake('wrong-root');
    expect(record.error!.message).toContain(
      `rank 0 broadcast(root 1, ${B12}, #2) in step 0; rank 1 broadcast(root 0, ${B12}, #2) in step 0`,
    );
  });

  it("send without recv: a hang ended by the timeout, each rank's call from the flight recorder", async () => {
    const record = await runMistake('send-without-recv');
    expect(record.error).toMatchObject({ code: 'CLAB_TIMEOUT', step: 0 });
    expect(record.error!.message).toBe(
      `step 0 (rank 0 sends 16 MiB; rank 1 does not receive) did not finish on every rank within ${TIMEOUT_MS} ms: ` +
        'rank 0 waits in send(to 1, 4194304 × float32 = 16 MiB, #2); ' +
        `rank 1 waits in all_reduce(sum, ${B12}, #2) of step 1 (all_reduce)`,
    );
    expect(openSlices(record)).toEqual([
      'rank 0 step 0: rank 0 sends 16 MiB; rank 1 does not receive (unfinished: in send(to 1, 4194304 × float32 = 16 MiB, #2))',
      `rank 1 step 1: all_reduce (unfinished: in all_reduce(sum, ${B12}, #2))`,
    ]);
  });

  it('recv from the wrong peer: three ranks in three different calls #2', async () => {
    const record = await runMistake('recv-wrong-peer');
    expect(record.error).toMatchObject({ code: 'CLAB_TIMEOUT', step: 0 });
    expect(record.error!.message).toContain(
      'rank 0 waits in send(to 1, 4194304 × float32 = 16 MiB, #2); rank 1 waits in recv(from 2, 4194304 × float32 = 16 MiB, #2); ' +
        `rank 2 waits in all_reduce(sum, ${B12}, #2) of step 1 (all_reduce)`,
    );
  });

  it('reading memory reduce_scatter never wrote: rank 0 right by luck, rank 1 reads poison', async () => {
    const record = await runMistake('reduce-scatter-unwritten');
    expect(record.status).toBe('failed');
    expect(record.error).toBeNull();
    expect(record.steps.map((s) => s.verdict)).toEqual(['pass', 'fail']);
    const lines = resultLines(record.steps[1]);
    expect(lines.find((l) => l.startsWith('[Rank 0]'))).toMatch(/: \[3, 5, 7\] ✓$/);
    expect(lines.find((l) => l.startsWith('[Rank 1]'))).toMatch(/: \[nan, nan, nan\] 3 of 3 wrong: \[0\] expected 9 got nan/);
  });
});
