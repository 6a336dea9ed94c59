// Integration: a run's answer comes once every rank is done, before their processes have ended
// (a GPU rank's exit is the driver taking its context back, 0.1–0.3 s); the record's GPUs come from
// rank 0 of forked nccl ranks; ranks that do not leave are killed. Stand-in rank processes
// (test/fixtures/workers/leaving-rank.cjs) speak the protocol without a backend.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LabRun } from '../../../../src/main/core/run/run';
import { compileLoaded, parseScenarioText } from '../../../../src/shared/plan/text';
import { PROTOCOL_VERSION } from '../../../../src/shared/run/rank/protocol';
import { alive } from '../leftovers';

function standInRun(linger: string, options: { leaveGraceMs?: number } = {}) {
  const loaded = parseScenarioText(
    JSON.stringify({ version: 1, name: 'leaving', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 4 }] }),
    'leaving.scenario.json',
  );
  return new LabRun({
    plan: compileLoaded(loaded),
    backend: 'nccl',
    scenario: loaded.raw,
    scenarioFile: null,
    workerEntry: path.resolve('test/fixtures/workers/leaving-rank.cjs'),
    env: { ...process.env, CLAB_TEST_PROTOCOL_VERSION: String(PROTOCOL_VERSION), CLAB_TEST_LINGER_MS: linger },
    ...options,
  });
}

describe("a run's answer", () => {
  it('comes once every rank is done, while their processes still end; run() once they have', async () => {
    const run = standInRun('1500');
    const ended = run.run();
    const answer = await run.answer();
    const pids = run.workerPids();
    expect(answer.status).toBe('passed');
    expect(pids.every(alive)).toBe(true);
    const record = await ended;
    expect(pids.some(alive)).toBe(false);
    expect(record.status).toBe('passed');
    expect(record.steps).toEqual(answer.steps);
  });

  it("keeps the GPUs rank 0 read, not a probe's", async () => {
    const record = await standInRun('0').answer();
    expect(record.environment.gpus.map((g) => g.name)).toEqual(['Stand-in GPU']);
    expect(record.environment.versions.nccl).toBeDefined();
  });

  it('kills ranks that have not exited within the grace after leave, and says so', async () => {
    const run = standInRun('never', { leaveGraceMs: 300 });
    const answer = await run.answer();
    expect(answer.status).toBe('passed');
    const record = await run.run();
    expect(run.workerPids().some(alive)).toBe(false);
    expect(record.status).toBe('passed');
    expect(record.logs.map((l) => l.text)).toContain('ranks 0, 1 had not exited 0.3 s after every rank was done: killed');
  });
});
