// Host buffers given back between steps (host-memory.ts): the collector frees a dropped buffer's
// memory within the call, and the executor collects before a step once earlier steps wrote enough.
import { describe, expect, it } from 'vitest';
import { HostMemory, hostCollector, hostWrittenBytes } from '../../src/worker/host-memory';
import { stepPreparer } from '../../src/worker/buffers';
import { rankStep } from '../../src/shared/plan/per-rank';
import { PlanExecutor } from '../../src/worker/executor';
import { compilePlan } from '../../src/shared/plan/compile';
import { scenarioSchema } from '../../src/shared/scenario/schema';
import { cpuCommInit, createId } from '../native/ranks';

const MiB = 2 ** 20;

/** A plan of `steps` on `ranks` ranks, float32, one iteration and no warm-up each. */
const planOf = (name: string, ranks: number, steps: unknown[]) =>
  compilePlan(scenarioSchema.parse({ version: 1, name, world: { ranks }, defaults: { iters: 1, warmup: 0, dtype: 'float32' }, steps }));

describe('host memory between steps', () => {
  it("gives a dropped buffer's memory back to the system during the collection, not later on another thread", () => {
    const collect = hostCollector();
    expect(collect).not.toBeNull();
    collect!();
    // Without the collector's own sweeping, about 1 in 20 of these was still mapped after gc() returned.
    for (let i = 0; i < 20; i++) {
      let big: Uint8Array | null = new Uint8Array(48 * MiB);
      big.fill(1); // written, as the host path writes its buffers
      const held = process.memoryUsage().rss;
      // eslint-disable-next-line no-useless-assignment -- dropping the only reference is what lets V8 free it
      big = null;
      collect!();
      expect(held - process.memoryUsage().rss).toBeGreaterThanOrEqual(44 * MiB);
    }
  });

  it('collects only once the written bytes reach the threshold', () => {
    let calls = 0;
    const m = new HostMemory(() => {
      calls++;
    }, 64 * MiB);
    m.wrote(40 * MiB);
    expect(m.boundary()).toBe(false);
    m.wrote(30 * MiB);
    expect(m.boundary()).toBe(true);
    expect(m.boundary()).toBe(false); // counted afresh
    expect([calls, m.collections]).toEqual([1, 1]);
  });

  it('is driven by the executor: host-made steps count, backend-made ones do not', async () => {
    // 8 Mi float32 on one rank: 32 MiB in and 32 MiB out per all_gather.
    const plan = planOf('mem', 1, [
      { op: 'all_gather', count: 8388608 },
      { op: 'all_gather', count: 8388608 },
      { op: 'all_gather', count: 8388608 },
    ]);
    const collections = async (dataOnBackend: boolean) => {
      const before = process.env.CLAB_DATA;
      if (dataOnBackend) process.env.CLAB_DATA = 'backend';
      const comm = await cpuCommInit(createId(1), 0, 1);
      if (before === undefined) delete process.env.CLAB_DATA;
      else process.env.CLAB_DATA = before;
      try {
        expect(comm.makesData).toBe(dataOnBackend);
        let calls = 0;
        const memory = new HostMemory(() => {
          calls++;
        }, 64 * MiB);
        await new PlanExecutor(plan, { rank: 0, comm, memory, stepBegin: () => undefined, stepEnd: () => undefined }).run();
        return calls;
      } finally {
        comm.destroy();
      }
    };
    // Before the second and the third step (64 MiB written by the step before each); none after the last.
    expect(await collections(false)).toBe(2);
    // The backend made and checked the data: the host never wrote those buffers.
    expect(await collections(true)).toBe(0);
  }, 30_000);

  it("counts neither side of a send the backend makes, nor counts a send's host-made buffer as nothing", () => {
    // 1 Mi float32: 4 MiB each way; a one-way send, and an exchange (a group of two sends).
    const plan = planOf('mem-p2p', 2, [
      { op: 'send', from: 0, to: 1, count: 1048576 },
      {
        op: 'group',
        steps: [
          { op: 'send', from: 0, to: 1, count: 1048576 },
          { op: 'send', from: 1, to: 0, count: 1048576 },
        ],
      },
    ]);
    const written = (rank: number, backend: boolean) =>
      plan.steps.map((step) => hostWrittenBytes(stepPreparer(rankStep(step, rank)!, rank, 2, backend)!()));
    // The sender's stand-in used to count as written: 64 MiB of it made a sweep's large sends collect, 4.4 ms each.
    expect(written(0, true)).toEqual([0, 0]);
    expect(written(1, true)).toEqual([0, 0]);
    expect(written(0, false)).toEqual([4 * MiB, 8 * MiB]);
    expect(written(1, false)).toEqual([4 * MiB, 8 * MiB]);
  });

  it('does not collect while an async step is in flight (its loop may be being issued)', async () => {
    const plan = planOf('mem-async', 1, [
      { op: 'all_gather', count: 8388608, async: true, id: 'a' },
      { op: 'all_gather', count: 8388608 },
      { op: 'wait', id: 'a' },
      { op: 'all_gather', count: 8388608 },
    ]);
    const comm = await cpuCommInit(createId(1), 0, 1);
    try {
      const boundaries: number[] = [];
      let step = -1;
      const memory = new HostMemory(() => {
        boundaries.push(step);
      }, 64 * MiB);
      await new PlanExecutor(plan, {
        rank: 0,
        comm,
        memory,
        stepBegin: (s) => {
          step = s.index;
        },
        stepEnd: () => undefined,
      }).run();
      // Not when step 1 makes its buffers (step 0 still pending), but when step 3 does, once the wait let step 0 go.
      expect(boundaries).toEqual([3]);
    } finally {
      comm.destroy();
    }
  }, 30_000);
});
