// Plain steps run one ahead (steps-ahead.ts): the executor enqueues a step's calls while the step
// before it still runs, reports the steps in plan order all the same, names the step that failed,
// and keeps compare blocks, async steps and step mode as they were. Against a real world-1 cpu
// communicator whose calls are held until the test lets them go.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { compilePlan } from '../../src/shared/plan/compile';
import { scenarioSchema } from '../../src/shared/scenario/schema';
import { PlanExecutor } from '../../src/worker/executor';
import { aheadAllowed, aheadMinBytes, failedStep } from '../../src/worker/steps-ahead';
import type { NativeComm, NativeOp, NativeTimes } from '../../src/addon/native-api';
import type { RankStepResult } from '../../src/shared/run/rank/protocol';
import { cpuCommInit, createId } from '../native/ranks';

const comms: NativeComm[] = [];
afterAll(() => comms.forEach((c) => c.destroy()));
afterEach(() => {
  delete process.env.CLAB_STEPS_AHEAD;
  delete process.env.CLAB_AHEAD_MIN_BYTES;
});

/** A cpu communicator whose every call waits for `release(n)`; `log` says what was enqueued and what ended, in order. */
async function heldComm(failOn?: number, gpu = true) {
  const real = await cpuCommInit(createId(1), 0, 1);
  comms.push(real);
  const log: string[] = [];
  const held: (() => void)[] = [];
  let calls = 0;
  const comm: NativeComm = {
    ...real,
    rank: 0,
    world: 1,
    makesData: false,
    ...(gpu ? { device: 0 } : {}), // as a GPU's: on cpu nothing runs ahead
    async enqueue(stream: number, op: NativeOp, repeat = 1): Promise<NativeTimes> {
      const n = calls++;
      log.push(`enqueue ${n}`);
      await new Promise<void>((go) => held.push(go));
      if (n === failOn) throw Object.assign(new Error('an NCCL error in this call'), { code: 'CLAB_NCCL_ERROR' });
      const times = await real.enqueue(stream, op, repeat);
      log.push(`done ${n}`);
      return times;
    },
    prestage: (stream, op) => real.prestage(stream, op),
    drain: (stream) => real.drain(stream),
    abort: (reason) => real.abort(reason),
    destroy: () => undefined,
    destroyAsync: async () => undefined,
  };
  /** Lets the held calls go, one turn of the event loop apart, until `until()` or none is left for a while. */
  const release = async (until: () => boolean) => {
    for (let idle = 0; idle < 50 && !until();) {
      const go = held.shift();
      if (go) {
        idle = 0;
        go();
      } else idle++;
      await new Promise((r) => setTimeout(r, 1));
    }
  };
  return { comm, log, release };
}

const plan = (steps: unknown[]) =>
  compilePlan(
    scenarioSchema.parse({
      version: 1,
      name: 'ahead',
      world: { ranks: 1 },
      defaults: { iters: 1, warmup: 0, dtype: 'float32' },
      steps,
    }),
  );

/** Runs `steps` (each one call: no warm-up, one iteration) and says when each step's call was enqueued against the others' ends. */
async function runHeld(steps: unknown[], failOn?: number, gpu = true) {
  const { comm, log, release } = await heldComm(failOn, gpu);
  const results: RankStepResult[] = [];
  const begun: number[] = [];
  const run = new PlanExecutor(plan(steps), {
    rank: 0,
    comm,
    stepBegin: (s) => begun.push(s.index),
    stepEnd: (r) => results.push(r),
  }).run();
  let error: unknown = null;
  let over = false;
  const ended = run.then(
    () => (over = true),
    (e) => {
      error = e;
      over = true;
    },
  );
  // Nothing is let go until the executor has enqueued what it will without an answer.
  await new Promise((r) => setTimeout(r, 20));
  const before = [...log];
  await release(() => over);
  await ended;
  return { before, log, results, begun, error };
}

/** 4 MiB of float32 each. */
const MiB4 = 2 ** 20;
const threeSteps = [
  { op: 'all_reduce', count: MiB4, inPlace: true },
  { op: 'all_reduce', count: MiB4, inPlace: true },
  { op: 'all_reduce', count: MiB4, inPlace: true },
];

describe('steps run one ahead', () => {
  it("enqueues the next plain step's call while the one before still runs, and reports them in plan order", async () => {
    const { before, log, results } = await runHeld(threeSteps);
    // The line-up barrier (call 0) first; then step 0's call and, before it ends, step 1's.
    expect(before).toEqual(['enqueue 0']);
    expect(log.indexOf('enqueue 2')).toBeLessThan(log.indexOf('done 1'));
    expect(log.indexOf('enqueue 3')).toBeLessThan(log.indexOf('done 2'));
    // Never two ahead: step 2's call waits for step 0's end.
    expect(log.indexOf('enqueue 3')).toBeGreaterThan(log.indexOf('done 1'));
    expect(results.map((r) => [r.step, r.verdict])).toEqual([
      [0, 'pass'],
      [1, 'pass'],
      [2, 'pass'],
    ]);
  });

  it('runs small steps ahead too: one float each', async () => {
    const { log } = await runHeld([
      { op: 'all_reduce', count: 1, inPlace: true },
      { op: 'all_reduce', count: 1, inPlace: true },
      { op: 'all_reduce', count: 1, inPlace: true },
    ]);
    expect(log.indexOf('enqueue 2')).toBeLessThan(log.indexOf('done 1'));
    expect(log.indexOf('enqueue 3')).toBeLessThan(log.indexOf('done 2'));
  });

  it('runs nothing beside a step below CLAB_AHEAD_MIN_BYTES where it is set', async () => {
    process.env.CLAB_AHEAD_MIN_BYTES = String(4 * MiB4);
    const { log } = await runHeld([
      { op: 'all_reduce', count: MiB4, inPlace: true },
      { op: 'all_reduce', count: MiB4 - 1, inPlace: true },
      { op: 'all_reduce', count: MiB4, inPlace: true },
    ]);
    // Step 1 (call 2) is enqueued once step 0 (call 1) has ended, and step 2 (call 3) once step 1 has.
    expect(log.indexOf('enqueue 2')).toBeGreaterThan(log.indexOf('done 1'));
    expect(log.indexOf('enqueue 3')).toBeGreaterThan(log.indexOf('done 2'));
  });

  it('runs nothing ahead of a step on another stream, whose calls would run beside it', async () => {
    const { log } = await runHeld([
      { op: 'all_reduce', count: MiB4, inPlace: true, stream: 'comm' },
      { op: 'all_reduce', count: MiB4, inPlace: true },
      { op: 'all_reduce', count: MiB4, inPlace: true },
    ]);
    // Step 1 (call 2, the default stream) waits for step 0 (call 1, on "comm"); step 2 runs ahead of step 1.
    expect(log.indexOf('enqueue 2')).toBeGreaterThan(log.indexOf('done 1'));
    expect(log.indexOf('enqueue 3')).toBeLessThan(log.indexOf('done 2'));
  });

  it('runs nothing ahead on cpu, where the host does the op itself', async () => {
    const { log } = await runHeld(threeSteps, undefined, false);
    expect(log).toEqual(['enqueue 0', 'done 0', 'enqueue 1', 'done 1', 'enqueue 2', 'done 2', 'enqueue 3', 'done 3']);
  });

  it('reads CLAB_AHEAD_MIN_BYTES as a bounded number of bytes', () => {
    expect(aheadMinBytes(undefined)).toBe(0);
    expect(aheadMinBytes('')).toBe(0);
    expect(aheadMinBytes('4194304')).toBe(4194304);
    for (const bad of ['-1', '4MiB', '1e6', '2199023255553', ' 8'])
      expect(() => aheadMinBytes(bad)).toThrow(/CLAB_AHEAD_MIN_BYTES must be a number of bytes/);
  });

  it("is allowed on a GPU's communicator only, without the lab's NCCL plug-ins, unless CLAB_STEPS_AHEAD=0", () => {
    expect(aheadAllowed({ device: 1 }, null)).toBe(true);
    expect(aheadAllowed({ device: undefined }, null)).toBe(false);
    expect(aheadAllowed(null, null)).toBe(false);
    expect(aheadAllowed({ device: 1 }, { plugin: 'loaded' })).toBe(false);
    process.env.CLAB_STEPS_AHEAD = '0';
    expect(aheadAllowed({ device: 1 }, null)).toBe(false);
  });

  it('runs each step after the one before has ended under CLAB_STEPS_AHEAD=0', async () => {
    process.env.CLAB_STEPS_AHEAD = '0';
    const { log, results } = await runHeld(threeSteps);
    expect(log).toEqual(['enqueue 0', 'done 0', 'enqueue 1', 'done 1', 'enqueue 2', 'done 2', 'enqueue 3', 'done 3']);
    expect(results.map((r) => r.step)).toEqual([0, 1, 2]);
  });

  it('names the step whose call failed, not the one enqueued after it', async () => {
    // Call 2 is step 1's; step 2's call was enqueued behind it, but step 2 never began for the core.
    const { error, begun, results, log } = await runHeld(threeSteps, 2);
    expect(log).toContain('enqueue 3');
    expect(begun).toEqual([0, 1]);
    expect((error as Error).message).toBe('an NCCL error in this call');
    expect(failedStep(error)).toBe(1);
    expect(results.map((r) => r.step)).toEqual([0]);
  });

  it('keeps async steps and their waits as they were: nothing runs ahead while one is in flight', async () => {
    const { log } = await runHeld([
      { op: 'all_reduce', count: MiB4, inPlace: true, async: true, id: 'a' },
      { op: 'all_reduce', count: MiB4, inPlace: true },
      { op: 'wait', id: 'a' },
      { op: 'all_reduce', count: MiB4, inPlace: true },
    ]);
    // Step 1 (call 2) is awaited before anything else is enqueued while the async step 0 is in flight.
    expect(log.indexOf('enqueue 3')).toBeGreaterThan(log.indexOf('done 2'));
  });

  it('keeps compare blocks as they were: a step after a block waits for the block, and the block for the step before it', async () => {
    const { log, results } = await runHeld([
      { op: 'all_reduce', count: MiB4, inPlace: true },
      {
        op: 'compare',
        label: 'c',
        repeat: 1,
        warmup: 0,
        variants: [
          { name: 'v', steps: [{ op: 'all_reduce', count: MiB4, inPlace: true }] },
          { name: 'w', steps: [{ op: 'all_reduce', count: MiB4, inPlace: true }] },
        ],
      },
      { op: 'all_reduce', count: MiB4, inPlace: true },
    ]);
    // Nothing of the block is enqueued while step 0's call (call 1) runs.
    expect(log.indexOf('enqueue 2')).toBeGreaterThan(log.indexOf('done 1'));
    // Every step reported, in plan order (the block's markers check nothing).
    expect(results.map((r) => r.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(results.filter((r) => r.verdict !== 'none').map((r) => r.verdict)).toEqual(['pass', 'pass', 'pass', 'pass']);
  });
});
