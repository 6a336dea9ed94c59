// A rank killed (SIGKILL: no handler of its own runs) at any moment of start-up leaves no cpu
// segment in /dev/shm: not the one it was making, not one whose name only it knew, not one the
// others never came to attach. The kill comes from inside the rank at an exact moment
// (test/fixtures/addons/killed-rank-addon.cjs, through CLAB_NATIVE_ADDON).
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LabRun } from '../../../src/main/core/run/run';
import { compilePlan } from '../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../src/shared/scenario/schema';
import { alive, shmSegments } from './leftovers';

const KILLING_ADDON = resolve('test/fixtures/addons/killed-rank-addon.cjs');

const collective = { op: 'all_reduce', count: 4 };
const pairs = { op: 'pairs', bytes: 64, latency: false, copy: false };

/** Every moment of start-up that the addon stand-in can stop a rank at, on a run-wide communicator or a pair's. */
const tries = [2, 3, 4].flatMap((ranks) => [
  ...['before-create', 'created', 'before-join', 'joined'].map((at) => ({ ranks, step: collective, rank: 0, at })),
  ...['before-join', 'joined'].map((at) => ({ ranks, step: collective, rank: ranks - 1, at })),
  { ranks, step: pairs, rank: 0, at: 'created' },
]);

async function runKilled({ ranks, step, rank, at }: (typeof tries)[number]) {
  const scenario = scenarioSchema.parse({ version: 1, name: 'killed', world: { ranks }, defaults: { warmup: 0, iters: 1 }, steps: [step] });
  const env = { ...process.env, CLAB_NATIVE_ADDON: KILLING_ADDON, CLAB_TEST_KILL_RANK: String(rank), CLAB_TEST_KILL_AT: at };
  const run = new LabRun({ plan: compilePlan(scenario), backend: 'cpu', scenario, scenarioFile: null, env });
  const record = await run.run();
  return { record, pids: run.workerPids() };
}

describe('a rank killed during start-up', () => {
  it(`leaves no process and no /dev/shm segment, whenever it dies (${tries.length} moments)`, async () => {
    const left: string[] = [];
    // The runs are independent (each its own ranks, each kill inside its own rank) and mostly wait
    // (for a start, an abort's grace): those of one world size go side by side.
    for (const ranks of [2, 3, 4]) {
      const batch = tries.filter((t) => t.ranks === ranks);
      const runs = await Promise.all(batch.map(runKilled));
      for (const [i, { record, pids }] of runs.entries()) {
        const t = batch[i];
        expect(record.status, JSON.stringify(t)).toBe('error');
        expect(pids.filter(alive), JSON.stringify(t)).toEqual([]);
        const theirs = shmSegments().filter((f) => pids.some((pid) => f.startsWith(`clab-${pid}-`)));
        left.push(...theirs.map((f) => `${f} (${t.ranks} ranks, ${t.step.op}, rank ${t.rank} killed ${t.at})`));
      }
    }
    expect(left).toEqual([]);
  }, 300_000);
});
