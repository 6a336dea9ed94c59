// A scenario's NCCL settings (`env`): bounded and checked where they are written, set in every
// rank process's environment, and kept in the run record beside clab's own environment.
import { describe, expect, it } from 'vitest';
import { LabRun } from '../../../src/main/core/run/run';
import { compilePlan } from '../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../src/shared/scenario/schema';

const base = { version: 1, name: 'env', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 4 }] };
const problems = (env: unknown) => {
  const r = scenarioSchema.safeParse({ ...base, env });
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe("a scenario's NCCL settings", () => {
  it('takes NCCL_* names with printable values, and names what is wrong otherwise', () => {
    expect(problems({ NCCL_ALGO: 'Tree', NCCL_PROTO: 'Simple' })).toEqual([]);
    expect(problems({ LD_PRELOAD: '/tmp/x.so' })[0]).toMatch(/^env\.LD_PRELOAD: expected an NCCL setting/);
    expect(problems({ NCCL_NVLS_ENABLE: '1' })[0]).toMatch(/^env\.NCCL_NVLS_ENABLE: NCCL_NVLS_ENABLE stays 0/);
    expect(problems({ NCCL_DEBUG: 'INFO\n' })[0]).toMatch(/^env\.NCCL_DEBUG: expected printable ASCII/);
    expect(problems(Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`NCCL_X${i}`, '1'])))[0]).toMatch(/at most 32 settings/);
  });

  it('reaches the ranks and the record', async () => {
    const scenario = scenarioSchema.parse({ ...base, env: { NCCL_ALGO: 'Ring', NCCL_DEBUG_SUBSYS: 'INIT' } });
    const plan = compilePlan(scenario);
    expect(plan.env).toEqual({ NCCL_ALGO: 'Ring', NCCL_DEBUG_SUBSYS: 'INIT' });
    const record = await new LabRun({
      plan,
      backend: 'cpu',
      scenario,
      scenarioFile: null,
      env: { ...process.env, NCCL_ALGO: 'Tree' },
    }).run();
    expect(record.status).toBe('passed');
    // The scenario's value wins over the environment clab was started in.
    expect(record.environment.env).toMatchObject({ NCCL_ALGO: 'Ring', NCCL_DEBUG_SUBSYS: 'INIT' });
    expect(record.environment.env.NCCL_NVLS_ENABLE).not.toBe('1');
  });
});
