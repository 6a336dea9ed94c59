// The steps a rank refuses before any call, alike on every rank (refusals.ts): from the plan and
// what the backend says of itself, no process.
import { describe, expect, it } from 'vitest';
import { compilePlan } from '../../src/shared/plan/compile';
import { scenarioSchema } from '../../src/shared/scenario/schema';
import { stepRefusal } from '../../src/worker/refusals';

const plan = compilePlan(
  scenarioSchema.parse({ version: 1, name: 'refusals', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 4 }] }),
);
const step = plan.steps.find((s) => s.action.kind === 'collective')!;
const nccl = (version: number) => ({ ncclVersion: version, launchesGraphs: true });

describe('the steps a rank refuses before any call', () => {
  it('refuses windows on an NCCL older than 2.27, and runs them on 2.27', () => {
    const windowed = { ...step, registration: 'window' as const };
    expect(stepRefusal(windowed, plan, nccl(22603))).toMatch(
      /symmetric windows .* need NCCL 2\.27\.0 or later; this rank loaded NCCL 2\.26\.3/,
    );
    expect(stepRefusal(windowed, plan, nccl(22700))).toBeNull();
  });

  it("refuses a communicator's CTA policy zero before NCCL 2.29, naming the setting", () => {
    const onSplit = { ...step, comm: 1 };
    const withZero = { ...plan, comms: [{ ctaPolicy: 'zero' as const }] };
    expect(stepRefusal(onSplit, withZero, nccl(22803))).toMatch(/zero-SM policy .* needs NCCL 2\.29\.0 or later/);
    expect(stepRefusal(onSplit, withZero, nccl(22900))).toBeNull();
  });

  it('refuses windows where a rank of the world takes no part in the step, on every rank that does', () => {
    // On 3 GPUs, a send 0 → 1 with windows (overlap-gpu's zero-SM variant) hung ranks 0 and 1 in
    // NCCL's window registration, a collective that rank 2 never joined (NCCL 2.30.7, 4 × H100).
    const three = compilePlan(
      scenarioSchema.parse({
        version: 1,
        name: 'windows',
        world: { ranks: 3 },
        steps: [
          { op: 'send', from: 0, to: 1, count: 4 },
          { op: 'all_reduce', count: 4 },
        ],
      }),
    );
    const send = three.steps.find((s) => s.action.kind === 'p2p')!;
    const all = three.steps.find((s) => s.action.kind === 'collective')!;
    expect(stepRefusal({ ...send, registration: 'window' }, three, nccl(23007))).toMatch(
      /registered as NCCL windows .*ncclCommWindowRegister.*, and rank 2 takes no part in this step: the others would wait for it for ever/,
    );
    expect(stepRefusal({ ...all, registration: 'window' }, three, nccl(23007))).toBeNull();
    expect(stepRefusal(send, three, nccl(23007))).toBeNull();
    // The same on a communicator with the zero-SM policy (overlap-gpu on 3 and 4 GPUs, NCCL 2.30.7).
    const zero = { ...three, comms: [{ ctaPolicy: 'zero' as const }] };
    expect(stepRefusal({ ...send, comm: 1 }, zero, nccl(23007))).toMatch(
      /zero-SM policy .*every rank of the communicator, and rank 2 takes no part in this step/,
    );
    expect(stepRefusal({ ...all, comm: 1 }, zero, nccl(23007))).toBeNull();
  });

  it('refuses graph launch on a backend without CUDA graphs, whatever its NCCL', () => {
    const graph = { ...step, launch: 'graph' as const };
    expect(stepRefusal(graph, plan, { ncclVersion: undefined, launchesGraphs: false })).toMatch(/this rank's backend has none$/);
    expect(stepRefusal(graph, plan, nccl(22803))).toBeNull();
  });

  it('refuses nothing of a plain step, and asks nothing of NCCL on a backend without it', () => {
    expect(stepRefusal({ ...step, registration: 'window' }, plan, { ncclVersion: undefined, launchesGraphs: false })).toBeNull();
    expect(stepRefusal(step, plan, nccl(21500))).toBeNull();
  });
});
