// The executor against a real world-1 cpu communicator, wrapped to record what it is asked and
// when. The loop timed as a whole (nccl-tests' way) is asked for outside compare blocks; the cpu
// backend does not run one (its clock readings cost nothing), so the wrapper answers the way the
// nccl backend does: the repetitions run once more first, timed only at the loop's ends.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { summarizeStep } from '../../src/shared/run/record/aggregate';
import { compilePlan } from '../../src/shared/plan/compile';
import type { PlanStep } from '../../src/shared/plan/types';
import type { RankStepResult, TimelineEvent } from '../../src/shared/run/rank/protocol';
import { scenarioSchema } from '../../src/shared/scenario/schema';
import { PlanExecutor } from '../../src/worker/executor';
import type { EnqueueOptions, NativeComm, NativeOp, NativeTimes } from '../../src/addon/native-api';
import { cpuCommInit, createId } from '../native/ranks';

const comms: NativeComm[] = [];
afterAll(() => comms.forEach((c) => c.destroy()));

type Asked = { op: string; repeat: number; loop: boolean; launch?: 'host' | 'graph'; eventsInLoop?: true };

/** `graphs`: the wrapper takes launch 'graph' as nccl does (its loop then reads as a graph's replay). */
async function loopingComm(graphs = false): Promise<{ comm: NativeComm; asked: Asked[]; seen: string[]; outputs: string[] }> {
  const real = await cpuCommInit(createId(1), 0, 1);
  comms.push(real);
  const asked: Asked[] = [];
  const outputs: string[] = []; // "OP ×REPEAT" of each enqueue, with " (output unread)" where it said output: false
  const seen: string[] = []; // "enqueue OP" and "done OP", in the order they happened
  const comm: NativeComm = {
    rank: 0,
    world: 1,
    makesData: false,
    launchesGraphs: graphs,
    async enqueue(stream: number, op: NativeOp, repeat = 1, options?: EnqueueOptions): Promise<NativeTimes> {
      asked.push({
        op: op.op,
        repeat,
        loop: options?.loop ?? false,
        ...(options?.launch ? { launch: options.launch } : {}),
        ...(options?.eventsInLoop ? { eventsInLoop: true as const } : {}),
      });
      seen.push(`enqueue ${op.op}`);
      outputs.push(`${op.op} ×${repeat}${options?.output === false ? ' (output unread)' : ''}`);
      const graph = options?.launch === 'graph';
      if (graph && !graphs) throw Object.assign(new Error('no graphs here'), { code: 'CLAB_UNSUPPORTED' });
      if (!options?.loop && !graph) return real.enqueue(stream, op, repeat).finally(() => seen.push(`done ${op.op}`));
      const loop = await real.enqueue(stream, op, repeat);
      const each = await real.enqueue(stream, op, repeat);
      seen.push(`done ${op.op}`);
      // As nccl reports the host thread that issued the loop.
      return {
        ...each,
        loopStartNs: loop.startNs[0],
        loopEndNs: loop.endNs[repeat - 1],
        loopHost: { issueNs: 1500, faults: 2, blocked: 3, preempted: 1 },
        ...(graph ? { launch: 'graph' as const } : {}),
      };
    },
    prestage: (stream, op) => real.prestage(stream, op),
    drain: (stream) => real.drain(stream),
    abort: (reason) => real.abort(reason),
    destroy: () => real.destroy(),
    destroyAsync: () => real.destroyAsync(),
  };
  return { comm, asked, seen, outputs };
}

describe('executor: the runs whose output no one reads', () => {
  it('are the warm-up, and the timed run where a fresh run is checked after it (an op that eats its input)', async () => {
    const plan = compilePlan(
      scenarioSchema.parse({
        version: 1,
        name: 'outputs',
        world: { ranks: 1 },
        defaults: { iters: 3, warmup: 2 },
        steps: [
          { op: 'all_reduce', count: 64, inPlace: true },
          { op: 'all_gather', count: 16 },
        ],
      }),
    );
    const { comm, outputs } = await loopingComm();
    const results: RankStepResult[] = [];
    await new PlanExecutor(plan, { rank: 0, comm, stepBegin: () => undefined, stepEnd: (r) => results.push(r) }).run();
    expect(outputs).toEqual([
      'barrier ×1',
      'all_reduce ×2 (output unread)',
      'all_reduce ×3 (output unread)',
      'all_reduce ×1',
      'all_gather ×2 (output unread)',
      'all_gather ×3',
    ]);
    expect(results.map((r) => r.verdict)).toEqual(['pass', 'pass']);
  });
});

describe('executor: the loop timed as a whole', () => {
  it('is asked for outside compare blocks when there is more than one iteration, and feeds busbw', async () => {
    const plan = compilePlan(
      scenarioSchema.parse({
        version: 1,
        name: 'loop',
        world: { ranks: 1 },
        defaults: { iters: 4, warmup: 1 },
        steps: [
          { op: 'all_reduce', count: 1024 },
          { op: 'broadcast', count: 8, iters: 1 },
          {
            op: 'compare',
            label: 'c',
            repeat: 1,
            warmup: 0,
            variants: [
              { name: 'a', steps: [{ op: 'all_gather', count: 16 }] },
              { name: 'b', steps: [{ op: 'all_gather', count: 16 }] },
            ],
          },
        ],
      }),
    );
    const { comm, asked } = await loopingComm();
    const results: RankStepResult[] = [];
    const events: TimelineEvent[] = [];
    await new PlanExecutor(plan, {
      rank: 0,
      comm,
      stepBegin: () => undefined,
      stepEnd: (r, e) => {
        results.push(r);
        events.push(...e);
      },
    }).run();

    expect(asked.filter((a) => a.loop)).toEqual([{ op: 'all_reduce', repeat: 4, loop: true }]);
    expect(asked.find((a) => a.op === 'broadcast' && a.repeat === 1)?.loop).toBe(false); // one iteration: nothing to gain
    // Inside a compare block, whose time is the span of its ops as they overlap: no extra loop.
    const timedInBlock = { op: 'all_gather', repeat: 4, loop: false };
    expect(asked.filter((a) => a.op === 'all_gather' && a.repeat === 4)).toEqual([timedInBlock, timedInBlock]);

    const allReduce = results.find((r) => r.step === 0)!;
    expect(allReduce.verdict).toBe('pass');
    expect(allReduce.timesUs).toHaveLength(4);
    expect(allReduce.loopUs).toBeGreaterThan(0);
    expect(allReduce.loopHost).toEqual({ issueUs: 1.5, faults: 2, blocked: 3, preempted: 1 });
    const loopEvents = events.filter((e) => e.phase === 'loop');
    expect(loopEvents).toHaveLength(1);
    expect(loopEvents[0]).toMatchObject({ step: 0, name: 'all_reduce ×4 (loop)' });
    expect((loopEvents[0].endNs - loopEvents[0].startNs) / 1e3).toBeCloseTo(allReduce.loopUs!, 6);
    // The loop ran before the per-iteration events.
    expect(loopEvents[0].endNs).toBeLessThanOrEqual(
      Math.min(...events.filter((e) => e.step === 0 && e.phase === 'timed').map((e) => e.startNs)),
    );
    expect(results.find((r) => r.step === 1)!.loopUs).toBeUndefined();

    const step = plan.steps[0] as PlanStep;
    expect(summarizeStep(step, [allReduce], 1).timing!.perOp).toBeCloseTo(allReduce.loopUs! / 4, 6);
  });

  it('asks for the iterations’ events inside the loop as CLAB_ITERATION_EVENTS and the size say, never in a compare block', async () => {
    // The size rule itself (256 MiB and more) is iteration-events.test.ts's; here, what reaches enqueue().
    const plan = compilePlan(
      scenarioSchema.parse({
        version: 1,
        name: 'inside',
        world: { ranks: 1 },
        defaults: { iters: 3, warmup: 0 },
        steps: [
          { op: 'all_reduce', count: 1024 },
          {
            op: 'compare',
            label: 'c',
            repeat: 1,
            warmup: 0,
            variants: [
              { name: 'a', steps: [{ op: 'all_reduce', count: 1024 }] },
              { name: 'b', steps: [{ op: 'all_reduce', count: 8 }] },
            ],
          },
        ],
      }),
    );
    const asked = async (choice: string | undefined) => {
      vi.stubEnv('CLAB_ITERATION_EVENTS', choice);
      try {
        const looping = await loopingComm();
        await new PlanExecutor(plan, { rank: 0, comm: looping.comm, stepBegin: () => undefined, stepEnd: () => undefined }).run();
        return looping.asked.filter((a) => a.repeat === 3);
      } finally {
        vi.unstubAllEnvs();
      }
    };
    const inBlock = { op: 'all_reduce', repeat: 3, loop: false };
    expect(await asked(undefined)).toEqual([{ op: 'all_reduce', repeat: 3, loop: true }, inBlock, inBlock]);
    expect(await asked('loop')).toEqual([{ op: 'all_reduce', repeat: 3, loop: true, eventsInLoop: true }, inBlock, inBlock]);
    expect(await asked('pass')).toEqual([{ op: 'all_reduce', repeat: 3, loop: true }, inBlock, inBlock]);
    await expect(asked('inside')).rejects.toThrow('CLAB_ITERATION_EVENTS must be auto, loop or pass (got "inside")');
  });

  it("enqueues a compare block's sync steps on one stream back to back, and waits before another stream", async () => {
    const plan = compilePlan(
      scenarioSchema.parse({
        version: 1,
        name: 'chain',
        world: { ranks: 1 },
        defaults: { iters: 1, warmup: 0 },
        steps: [
          {
            op: 'compare',
            label: 'c',
            repeat: 1,
            warmup: 0,
            variants: [
              {
                name: 'a',
                steps: [
                  { op: 'all_reduce', count: 4096, stream: 'x' },
                  { op: 'all_gather', count: 16, stream: 'x' },
                  { op: 'broadcast', count: 8, stream: 'y' },
                ],
              },
              { name: 'b', steps: [{ op: 'barrier' }] },
            ],
          },
        ],
      }),
    );
    const { comm, seen } = await loopingComm();
    const results: RankStepResult[] = [];
    await new PlanExecutor(plan, { rank: 0, comm, stepBegin: () => undefined, stepEnd: (r) => results.push(r) }).run();
    const at = (what: string) => seen.indexOf(what);
    expect(at('enqueue all_gather')).toBeGreaterThan(-1);
    expect(at('enqueue all_gather')).toBeLessThan(at('done all_reduce')); // same stream: no round trip between them
    expect(at('enqueue broadcast')).toBeGreaterThan(at('done all_gather')); // another stream: after the chain ended
    expect(results.filter((r) => r.verdict === 'fail')).toEqual([]);
    expect(results.filter((r) => r.verdict === 'pass')).toHaveLength(3);
  });
});

describe('executor: graph launch', () => {
  const graphPlan = () =>
    compilePlan(
      scenarioSchema.parse({
        version: 1,
        name: 'graph',
        world: { ranks: 1 },
        defaults: { iters: 3, warmup: 2 },
        steps: [
          { op: 'all_reduce', count: 1024, launch: 'graph', iters: 1 },
          { op: 'sweep', collective: 'broadcast', minBytes: 8, maxBytes: 16, launch: 'graph' },
          { op: 'all_gather', count: 16 },
        ],
      }),
    );

  it('asks for a graph-launched loop (even of one iteration) after a host-launched warm-up, and the result says so', async () => {
    const plan = graphPlan();
    const { comm, asked } = await loopingComm(true);
    const results: RankStepResult[] = [];
    const events: TimelineEvent[] = [];
    await new PlanExecutor(plan, {
      rank: 0,
      comm,
      stepBegin: () => undefined,
      stepEnd: (r, e) => {
        results.push(r);
        events.push(...e);
      },
    }).run();

    expect(asked.filter((a) => a.op === 'all_reduce')).toEqual([
      { op: 'all_reduce', repeat: 2, loop: false }, // the warm-up, host-launched
      { op: 'all_reduce', repeat: 1, loop: false, launch: 'graph' },
      { op: 'all_reduce', repeat: 1, loop: false }, // the check on fresh input, outside the graph
    ]);
    expect(asked.filter((a) => a.op === 'broadcast' && a.launch === 'graph').map((a) => a.repeat)).toEqual([3, 3]);
    expect(asked.filter((a) => a.op === 'all_gather').map((a) => a.launch)).toEqual([undefined, undefined]);
    expect(results.map((r) => [r.step, r.verdict, r.launch])).toEqual([
      [0, 'pass', 'graph'],
      [1, 'pass', 'graph'],
      [2, 'pass', 'graph'],
      [3, 'pass', undefined],
    ]);
    expect(events.filter((e) => e.phase === 'loop').map((e) => e.name)).toEqual([
      'all_reduce ×1 (graph)',
      'broadcast sweep 8 B ×3 (graph)',
      'broadcast sweep 16 B ×3 (graph)',
      'all_gather ×3 (loop)',
    ]);
    const first = results[0];
    expect(summarizeStep(plan.steps[0], [first], 1).timing!.perOp).toBeCloseTo(first.loopUs!, 6);
  });

  it('refuses a graph-launched step before handing it to a backend without graphs, and the run goes on', async () => {
    const { comm, asked } = await loopingComm(false);
    const results: RankStepResult[] = [];
    await new PlanExecutor(graphPlan(), { rank: 0, comm, stepBegin: () => undefined, stepEnd: (r) => results.push(r) }).run();
    expect(results.map((r) => [r.step, r.verdict, r.error?.code])).toEqual([
      [0, 'error', 'CLAB_UNSUPPORTED'],
      [1, 'error', 'CLAB_UNSUPPORTED'],
      [2, 'error', 'CLAB_UNSUPPORTED'],
      [3, 'pass', undefined],
    ]);
    expect(results[0].error?.message).toBe(
      `"launch": "graph" captures the timed loop in a CUDA graph, which only the nccl backend has; this rank's backend has none`,
    );
    expect(asked.filter((a) => a.op !== 'barrier').map((a) => a.op)).toEqual(['all_gather', 'all_gather']); // nothing else was handed over
  });
});

describe('executor: what NCCL refuses on older GPUs', () => {
  it('refuses a float8 reduction on a GPU below compute capability 9.0 before enqueuing it, after the steps before it ran', async () => {
    const plan = compilePlan(
      scenarioSchema.parse({
        version: 1,
        name: 'fp8',
        world: { ranks: 1 },
        defaults: { dtype: 'float8_e4m3', warmup: 0, iters: 1 },
        steps: [
          { op: 'all_gather', count: 64 },
          { op: 'all_reduce', label: 'fp8 sum', count: 64 },
          { op: 'broadcast', count: 64 },
        ],
      }),
    );
    const { comm: inner, asked } = await loopingComm();
    const comm: NativeComm = Object.assign(Object.create(null), inner, { device: 3, busId: '0000:41:00.0', computeCapability: 86 });
    const results: RankStepResult[] = [];
    const run = new PlanExecutor(plan, { rank: 0, comm, stepBegin: () => undefined, stepEnd: (r) => results.push(r) }).run();
    const error = await run.then(
      () => null,
      (e: Error & { code?: string }) => e,
    );
    expect(error?.code).toBe('CLAB_UNSUPPORTED');
    expect(error?.message).toBe(
      'all_reduce of float8_e4m3 needs GPUs of compute capability 9.0 or later (NCCL reduces float8 only there), and GPU 3 (bus 0000:41:00.0) is 8.6; ' +
        'expected float16 or bfloat16 for this step, or the cpu backend (gathers, broadcast, scatter, all_to_all and send/recv take float8 on any GPU)',
    );
    expect(results.map((r) => [r.step, r.verdict])).toEqual([[0, 'pass']]); // the gather before it ran and was checked
    expect(asked.map((a) => a.op)).not.toContain('all_reduce'); // never handed to the backend
  });

  it('runs float8 reductions at compute capability 9.0 and anything on the cpu backend', async () => {
    const plan = compilePlan(
      scenarioSchema.parse({
        version: 1,
        name: 'fp8',
        world: { ranks: 1 },
        defaults: { dtype: 'float8_e5m2', warmup: 0, iters: 1 },
        steps: [
          { op: 'all_reduce', count: 64 },
          { op: 'reduce_scatter_tensor', count: 64 },
        ],
      }),
    );
    for (const computeCapability of [90, undefined]) {
      const { comm: inner } = await loopingComm();
      const comm: NativeComm = Object.assign(Object.create(null), inner, { computeCapability });
      const results: RankStepResult[] = [];
      await new PlanExecutor(plan, { rank: 0, comm, stepBegin: () => undefined, stepEnd: (r) => results.push(r) }).run();
      expect(results.map((r) => r.verdict)).toEqual(['pass', 'pass']);
    }
  });
});

describe('executor: what the timeline and the learner see', () => {
  it("puts making buffers and checking outputs on the host lane, outside a compare block's span", async () => {
    const plan = compilePlan(
      scenarioSchema.parse({
        version: 1,
        name: 'host',
        world: { ranks: 1 },
        defaults: { iters: 2, warmup: 1 },
        steps: [
          { op: 'all_reduce', count: 4096 },
          {
            op: 'compare',
            label: 'c',
            repeat: 1,
            warmup: 0,
            variants: [
              { name: 'a', steps: [{ op: 'all_gather', count: 4096 }] },
              { name: 'b', steps: [{ op: 'all_gather', count: 4096 }] },
            ],
          },
        ],
      }),
    );
    const { comm } = await loopingComm();
    const events: TimelineEvent[] = [];
    await new PlanExecutor(plan, {
      rank: 0,
      comm,
      stepBegin: () => undefined,
      stepEnd: (_, e) => {
        events.push(...e);
      },
    }).run();

    const allReduce = events.filter((e) => e.step === 0);
    const fill = allReduce.find((e) => e.phase === 'fill')!;
    const verify = allReduce.find((e) => e.phase === 'verify')!;
    const onStream = allReduce.filter((e) => e.phase === 'warmup' || e.phase === 'timed');
    expect(onStream.length).toBeGreaterThanOrEqual(3);
    // Filled before the first run starts, checked after the last one ends.
    expect(fill.endNs).toBeLessThanOrEqual(Math.min(...onStream.map((e) => e.startNs)));
    expect(verify.startNs).toBeGreaterThanOrEqual(Math.max(...onStream.map((e) => e.endNs)));

    const gather = plan.steps.find((s) => s.origin.kind === 'compare' && s.action.kind === 'collective')!;
    const blockEnd = plan.steps.find((s) => s.action.kind === 'block-end' && s.index > gather.index)!;
    const block = events.find((e) => e.step === blockEnd.index && e.phase === 'block')!;
    const gatherEvents = events.filter((e) => e.step === gather.index);
    expect(gatherEvents.some((e) => e.phase === 'fill')).toBe(true);
    const gatherRuns = gatherEvents.filter((e) => e.phase !== 'fill' && e.phase !== 'verify');
    // The block is the span of its ops: host work (made before the block, checked after) is not in it.
    expect(block.startNs).toBe(Math.min(...gatherRuns.map((e) => e.startNs)));
    expect(block.endNs).toBe(Math.max(...gatherRuns.map((e) => e.endNs)));
  });

  it("reports each rank's small input beside its output, taken before an in-place op overwrites it", async () => {
    const plan = compilePlan(
      scenarioSchema.parse({
        version: 1,
        name: 'inputs',
        world: { ranks: 1 },
        steps: [
          { op: 'all_reduce', count: 3, redop: 'prod', inPlace: true, data: { kind: 'arange', start: 2 } },
          { op: 'all_reduce', count: 1000 },
        ],
      }),
    );
    const { comm } = await loopingComm();
    const results: RankStepResult[] = [];
    await new PlanExecutor(plan, {
      rank: 0,
      comm,
      stepBegin: () => undefined,
      stepEnd: (r) => {
        results.push(r);
      },
    }).run();
    expect(results[0].input).toBe('[2, 3, 4]');
    expect(results[0].output).toBe('[2, 3, 4]'); // one rank: the product of one input is itself
    expect(results[1].input).toBeNull(); // too large to read
  });
});

describe("executor: a compare variant's NCCL settings", () => {
  const plan = compilePlan(
    scenarioSchema.parse({
      version: 1,
      name: 'settings',
      world: { ranks: 1 },
      registerBuffers: true,
      steps: [
        {
          op: 'compare',
          label: 'c',
          repeat: 1,
          warmup: 0,
          variants: [
            { name: 'defaults', steps: [{ op: 'all_reduce', count: 16 }] },
            {
              name: '4 CTAs',
              nccl: { maxCTAs: 4 },
              steps: [
                { op: 'all_reduce', count: 16 },
                { op: 'compute', m: 8, n: 8, k: 8 },
              ],
            },
            { name: 'zero SM', nccl: { ctaPolicy: 'zero' }, steps: [{ op: 'all_reduce', count: 16 }] },
          ],
        },
      ],
    }),
  );

  it("runs each variant's communication on its own communicator, and refuses alike what the loaded NCCL cannot run", async () => {
    expect(plan.comms).toEqual([{ maxCTAs: 4 }, { ctaPolicy: 'zero' }]);
    const { comm: inner } = await loopingComm();
    const ops: NativeOp[] = [];
    // As an nccl communicator that loaded NCCL 2.28.3 says.
    const comm: NativeComm = {
      ...inner,
      ncclVersion: 22803,
      enqueue: (stream, op, repeat, options) => {
        ops.push(op);
        return inner.enqueue(stream, op, repeat, options);
      },
    };
    const results: RankStepResult[] = [];
    await new PlanExecutor(plan, { rank: 0, comm, stepBegin: () => undefined, stepEnd: (r) => results.push(r) }).run();

    const reduces = ops.filter((o) => o.op === 'all_reduce');
    expect(reduces.map((o) => o.comm)).toEqual([undefined, 1]); // the zero-SM one never reached the backend
    expect(ops.find((o) => o.op === 'gemm')?.comm).toBeUndefined();
    const zero = plan.steps.find((s) => s.origin.kind === 'compare' && s.origin.variant === 'zero SM' && s.action.kind === 'collective')!;
    expect(results.find((r) => r.step === zero.index)).toMatchObject({
      verdict: 'error',
      error: {
        code: 'CLAB_UNSUPPORTED',
        message:
          "NCCL's zero-SM policy (CTA policy zero, on window-registered buffers) needs NCCL 2.29.0 or later; this rank loaded NCCL 2.28.3",
      },
    });
  });
});

describe('executor: steps on windows and sweeps with a CTA policy', () => {
  const plan = compilePlan(
    scenarioSchema.parse({
      version: 1,
      name: 'windows',
      world: { ranks: 1 },
      steps: [
        { op: 'all_reduce', count: 16, registration: 'window' },
        { op: 'sweep', collective: 'all_gather', minBytes: 64, maxBytes: 64, ctaPolicy: 'zero' },
        { op: 'all_reduce', count: 16 },
      ],
    }),
  );

  /**
   * Runs the plan as a rank that loaded NCCL `version`: what reached the backend, and each step's
   * result. `declined`: as NCCL without symmetric support, which gives no window for any asked.
   */
  async function runAs(version: number, declined = false) {
    const { comm: inner } = await loopingComm();
    const ops: NativeOp[] = [];
    const comm: NativeComm = {
      ...inner,
      ncclVersion: version,
      enqueue: async (stream, op, repeat, options) => {
        ops.push(op);
        const t = await inner.enqueue(stream, op, repeat, options);
        return op.window ? { ...t, windows: { asked: 1, declined: declined ? 1 : 0 } } : t;
      },
    };
    const results: RankStepResult[] = [];
    await new PlanExecutor(plan, { rank: 0, comm, stepBegin: () => undefined, stepEnd: (r) => results.push(r) }).run();
    return { ops: ops.filter((o) => o.op !== 'barrier'), results };
  }

  it('gives the backend each step on its communicator, its buffers windows where it says', async () => {
    expect(plan.comms).toEqual([{}, { ctaPolicy: 'zero' }]);
    const { ops, results } = await runAs(23007);
    expect(ops.map((o) => [o.op, o.comm, o.window])).toEqual([
      ['all_reduce', 1, true],
      ['all_gather', 2, true],
      ['all_reduce', undefined, undefined],
    ]);
    expect(results.map((r) => r.verdict)).toEqual(['pass', 'pass', 'pass']);
    expect(results.map((r) => r.windows)).toEqual([{ asked: 1, declined: 0 }, { asked: 1, declined: 0 }, undefined]);
  });

  it('reports the windows NCCL gave none for, as where it has no symmetric memory support', async () => {
    const { results } = await runAs(23007, true);
    expect(results.map((r) => r.windows?.declined)).toEqual([1, 1, undefined]);
  });

  it("stages nothing of a compare variant's step that it refuses", async () => {
    const block = compilePlan(
      scenarioSchema.parse({
        version: 1,
        name: 'zero in a block',
        world: { ranks: 1 },
        registerBuffers: true,
        steps: [
          {
            op: 'compare',
            label: 'c',
            repeat: 1,
            warmup: 0,
            variants: [
              { name: 'plain', steps: [{ op: 'all_reduce', count: 16 }] },
              { name: 'zero', nccl: { ctaPolicy: 'zero' }, steps: [{ op: 'all_reduce', count: 16 }] },
            ],
          },
        ],
      }),
    );
    const { comm: inner } = await loopingComm();
    const staged: (number | undefined)[] = [];
    const comm: NativeComm = {
      ...inner,
      ncclVersion: 22803,
      prestage: (stream, op) => {
        staged.push(op.comm);
        return inner.prestage(stream, op);
      },
    };
    const results: RankStepResult[] = [];
    await new PlanExecutor(block, { rank: 0, comm, stepBegin: () => undefined, stepEnd: (r) => results.push(r) }).run();
    // The plain variant's all_reduce was staged ahead; the zero-SM one, refused on NCCL 2.28.3, not.
    expect(staged).toEqual([undefined]);
    expect(results.filter((r) => r.error).map((r) => r.error!.code)).toEqual(['CLAB_UNSUPPORTED']);
  });

  it('refuses alike, before any call, what the loaded NCCL cannot run, with the version it needs, and goes on', async () => {
    const old = await runAs(22605);
    expect(old.ops.map((o) => o.op)).toEqual(['all_reduce']);
    expect(old.results.slice(0, 2).map((r) => r.error?.message)).toEqual([
      'symmetric windows ("registration": "window": ncclCommWindowRegister, which NCCL\'s symmetric kernels run on) need NCCL 2.27.0 or later; this rank loaded NCCL 2.26.5',
      'symmetric windows ("registration": "window": ncclCommWindowRegister, which NCCL\'s symmetric kernels run on) need NCCL 2.27.0 or later; this rank loaded NCCL 2.26.5',
    ]);
    const v228 = await runAs(22803);
    expect(v228.ops.map((o) => [o.op, o.comm])).toEqual([
      ['all_reduce', 1],
      ['all_reduce', undefined],
    ]);
    expect(v228.results[1]).toMatchObject({
      verdict: 'error',
      error: {
        code: 'CLAB_UNSUPPORTED',
        message:
          "NCCL's zero-SM policy (CTA policy zero, on window-registered buffers) needs NCCL 2.29.0 or later; this rank loaded NCCL 2.28.3",
      },
    });
  });
});
