// Compare variants that set NCCL_ALGO/NCCL_PROTO: each setting gets a communicator of its own,
// made with the variables set and restored after, its id made by rank 0 and relayed to the others.
import { describe, expect, it } from 'vitest';
import { VariantComms } from '../../src/worker/variant-comms';
import { compilePlan } from '../../src/shared/plan/compile';
import { scenarioSchema } from '../../src/shared/scenario/schema';
import type { NativeAddon, NativeComm } from '../../src/addon/native-api';
import type { PairHost } from '../../src/worker/pairs';
import type { LogLine } from '../../src/shared/run/record/record';
import { variantJoins } from '../../src/shared/run/record/time-to-answer';

const plan = compilePlan(
  scenarioSchema.parse({
    version: 1,
    name: 'v',
    world: { ranks: 2 },
    defaults: { warmup: 0, iters: 1 },
    steps: [
      {
        op: 'compare',
        repeat: 2,
        warmup: 0,
        variants: [
          { name: 'ring LL', nccl: { algo: 'Ring', proto: 'LL' }, steps: [{ op: 'all_reduce', count: 4 }] },
          { name: 'default', steps: [{ op: 'all_reduce', count: 4 }] },
        ],
      },
      {
        op: 'compare',
        repeat: 1,
        warmup: 0,
        variants: [
          { name: 'again', nccl: { algo: 'Ring', proto: 'LL' }, steps: [{ op: 'all_reduce', count: 8 }] },
          { name: 'tree', nccl: { algo: 'Tree' }, steps: [{ op: 'all_reduce', count: 8 }] },
        ],
      },
    ],
  }),
);
const begins = plan.steps.filter((s) => s.action.kind === 'block-begin');

function host(rank: number) {
  const inits: { id: string; algo?: string; proto?: string }[] = [];
  const sent: [number, string][] = [];
  const logs: LogLine[] = [];
  const addon = {
    createUniqueId: () => `id-${inits.length}`,
    commInit: async (o: { id: string }) => {
      inits.push({ id: o.id, algo: process.env.NCCL_ALGO, proto: process.env.NCCL_PROTO });
      return { rank, world: 2 } as unknown as NativeComm;
    },
  } as unknown as NativeAddon;
  const h: PairHost = {
    rank,
    backend: 'nccl',
    addon,
    deviceOf: (r) => r,
    log: (text) => void logs.push({ rank, atNs: 0, text }),
    sendPairId: (step, id) => void sent.push([step, id]),
    pairId: async (step) => `relayed-${step}`,
  };
  return { h, inits, sent, logs };
}

describe('compare variants on communicators of their own', () => {
  it("compiles a variant's NCCL settings onto its block-begin steps only", () => {
    expect(begins.map((s) => (s.action as { nccl?: object }).nccl ?? null)).toEqual([
      { algo: 'Ring', proto: 'LL' },
      null,
      { algo: 'Ring', proto: 'LL' },
      null,
      { algo: 'Ring', proto: 'LL' },
      { algo: 'Tree' },
    ]);
  });

  it('makes one communicator per setting with its variables set, restores them, and shares it between blocks', async () => {
    process.env.NCCL_ALGO = 'users-own';
    delete process.env.NCCL_PROTO;
    const { h, inits, sent } = host(0);
    const v = new VariantComms(plan, h, null);
    const comms = [];
    for (const s of begins) comms.push(await v.enter(s));
    expect(comms.map((c) => c !== null)).toEqual([true, false, true, false, true, true]);
    expect(comms[0]).toBe(comms[2]);
    expect(comms[0]).toBe(comms[4]);
    expect(inits).toEqual([
      { id: 'id-0', algo: 'Ring', proto: 'LL' },
      { id: 'id-1', algo: 'Tree', proto: undefined },
    ]);
    expect(sent.map(([step]) => step)).toEqual([begins[0].index, begins[5].index]);
    expect(process.env.NCCL_ALGO).toBe('users-own');
    expect(process.env.NCCL_PROTO).toBeUndefined();
    delete process.env.NCCL_ALGO;
  });

  it('has the other ranks join with the id rank 0 made, relayed with the step', async () => {
    const { h, inits, sent } = host(1);
    await new VariantComms(plan, h, null).enter(begins[0]);
    expect(sent).toEqual([]);
    expect(inits[0].id).toBe(`relayed-${begins[0].index}`);
  });

  it("says how long each join took, in the line the record's time to answer reads", async () => {
    const { h, logs } = host(0);
    const v = new VariantComms(plan, h, null);
    for (const s of begins) await v.enter(s);
    expect(variantJoins(logs).map((j) => j.name)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^variant .+ communicator \(in steps\)$/)]),
    );
    expect(variantJoins(logs)).toHaveLength(2);
  });

  it('leaves the cpu backend on its one communicator', async () => {
    const { h } = host(0);
    expect(await new VariantComms(plan, { ...h, backend: 'cpu' }, null).enter(begins[0])).toBeNull();
  });
});
