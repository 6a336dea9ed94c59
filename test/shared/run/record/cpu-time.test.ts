// Scenarios sized for GPUs are refused on cpu ranks before they run: a step that a cpu rank cannot
// finish within its timeout is named, with the estimate and the way out.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpuStepSeconds, cpuTooSlow } from '../../../../src/shared/run/record/cpu-time';
import { compileLoaded, parseScenarioText } from '../../../../src/shared/plan/text';
import { compilePlan } from '../../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../../src/shared/scenario/schema';

const shipped = (name: string, ranks?: number) =>
  compileLoaded(parseScenarioText(readFileSync(`scenarios/${name}`, 'utf8'), name), { ranks });

describe("what cpu ranks cannot do in a step's timeout", () => {
  it('refuses overlap-gpu on cpu, naming its GPU-sized GEMM, the estimate against the timeout, and the way out', () => {
    const why = cpuTooSlow(shipped('overlap-gpu.scenario.json'));
    expect(why).toMatch(/steps\[0\] "warm-up matmul": 3 GEMMs of 8192×8192×4096 .* about \d+ s on a cpu rank, against its timeout of 60 s/);
    expect(why).toMatch(/GPUs \(--backend nccl\)|timeoutMs/);
  });

  it('lets every cpu-sized shipped scenario run', () => {
    for (const name of [
      'all-in-one.scenario.json',
      'allreduce-sweep.scenario.json',
      'overlap.scenario.json',
      'p2p-pairs.scenario.json',
      'p2p-broken-link.scenario.json',
    ]) {
      expect(cpuTooSlow(shipped(name)), name).toBeNull();
    }
  });

  it("counts a collective's bytes over the link as well as a GEMM's flops, per iteration", () => {
    const plan = compilePlan(
      scenarioSchema.parse({
        version: 1,
        name: 't',
        world: { ranks: 2 },
        steps: [
          { op: 'all_reduce', count: 2 ** 28, iters: 100, timeoutMs: 1000 },
          { op: 'compute', m: 64, n: 64, k: 64 },
        ],
      }),
    );
    expect(cpuStepSeconds(plan.steps[0], 2)).toBeGreaterThan(10);
    expect(cpuStepSeconds(plan.steps[1], 2)).toBeLessThan(0.01);
    expect(cpuTooSlow(plan)).toMatch(/steps\[0\] "all_reduce": 100 calls of 1 GiB/);
  });
});
