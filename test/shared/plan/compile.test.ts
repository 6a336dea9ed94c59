import { describe, expect, it } from 'vitest';
import { communicationOnlyStreams, compilePlan, involves, PlanError } from '../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../src/shared/scenario/schema';
import { actionBandwidthBasis } from '../../../src/shared/run/record/aggregate';

const scenario = (steps: unknown[], extra: object = {}) =>
  scenarioSchema.parse({ version: 1, name: 't', world: { ranks: 4 }, steps, ...extra });

describe('plan compiler', () => {
  it('applies scenario defaults and op defaults', () => {
    const plan = compilePlan(
      scenario(
        [
          { op: 'all_reduce', count: 3 },
          { op: 'all_gather', count: 2 },
        ],
        { defaults: { dtype: 'int32', iters: 5 } },
      ),
    );
    expect(plan.steps[0]).toMatchObject({ iters: 5, warmup: 0, action: { dtype: 'int32', redop: 'sum', inPlace: true } });
    expect(plan.steps[1].action).toMatchObject({ inPlace: false });
  });

  it("carries the scenario's NCCL settings and its buffer registration to the ranks, and neither when absent", () => {
    const plain = compilePlan(scenario([{ op: 'all_reduce', count: 3 }]));
    expect(plain.env).toBeUndefined();
    expect(plain.registerBuffers).toBeUndefined();
    const tuned = compilePlan(scenario([{ op: 'all_reduce', count: 3 }], { env: { NCCL_ALGO: 'Ring' }, registerBuffers: true }));
    expect(tuned).toMatchObject({ env: { NCCL_ALGO: 'Ring' }, registerBuffers: true });
    expect(() => scenario([{ op: 'all_reduce', count: 3 }], { registerBuffers: 'yes' })).toThrow();
  });

  it("keeps a matmul's SM target, and says it in the default label", () => {
    const plan = compilePlan(
      scenario([
        { op: 'compute', m: 8, n: 8, k: 8 },
        { op: 'compute', m: 8, n: 8, k: 8, smCount: 100 },
      ]),
    );
    expect(plan.steps.map((s) => s.label)).toEqual(['compute 8×8×8', 'compute 8×8×8 on 100 SMs']);
    expect(plan.steps[0].action).not.toHaveProperty('smCount');
    expect(plan.steps[1].action).toMatchObject({ kind: 'compute', smCount: 100 });
    expect(() => scenario([{ op: 'compute', m: 8, n: 8, k: 8, smCount: 0 }])).toThrow();
  });

  it('expands a sweep into one step per size with nccl-tests counts', () => {
    const plan = compilePlan(scenario([{ op: 'sweep', collective: 'all_gather', minBytes: 64, maxBytes: '1KiB' }]));
    expect(plan.steps.map((s) => (s.origin.kind === 'sweep' ? s.origin.size : 0))).toEqual([64, 128, 256, 512, 1024]);
    expect(plan.steps[0].action).toMatchObject({ kind: 'collective', op: 'all_gather', count: 4 });
  });

  it("expands a sendrecv sweep into nccl-tests' ring exchange, counted as the bytes each rank sends", () => {
    const plan = compilePlan(scenario([{ op: 'sweep', collective: 'sendrecv', minBytes: 8, maxBytes: 16 }]));
    expect(plan.steps).toHaveLength(2);
    const a = plan.steps[1].action;
    expect(a.kind).toBe('group');
    if (a.kind !== 'group') return;
    expect(a.items.map((i) => (i.kind === 'p2p' ? `${i.from}→${i.to}×${i.count}` : i.kind))).toEqual(['0→1×4', '1→2×4', '2→3×4', '3→0×4']);
    expect(actionBandwidthBasis(a, 4)).toEqual({ bytes: 16, busFactor: 1 });
    // One sender's sends add up; a both-ways pair counts each rank's bytes once.
    const one = compilePlan(scenario([{ op: 'group', steps: [0, 1, 2].map(() => ({ op: 'send', from: 0, to: 1, count: 2 })) }]));
    expect(actionBandwidthBasis(one.steps[0].action, 4)).toEqual({ bytes: 24, busFactor: 1 });
    const onOne = () =>
      compilePlan(scenario([{ op: 'sweep', collective: 'sendrecv', minBytes: 8, maxBytes: 16 }], { world: { ranks: 1 } }));
    expect(onOne).toThrow(PlanError);
    expect(() => onOne()).toThrow(/sendrecv needs at least 2 ranks; the world has 1/);
  });

  it('expands pairs into every ordered pair, each on its own unit of bandwidth, latency and copy steps', () => {
    const all = compilePlan(scenario([{ op: 'pairs', bytes: 1024 }]));
    const bw = all.steps.filter((s) => s.action.kind === 'pair' && s.action.measure === 'bandwidth');
    expect(bw.map((s) => s.label.split(' ').pop())).toEqual([
      '0→1',
      '1→0',
      '0→2',
      '2→0',
      '0→3',
      '3→0',
      '1→2',
      '2→1',
      '1→3',
      '3→1',
      '2→3',
      '3→2',
    ]);
    expect(all.steps).toHaveLength(36);
    // One unit per ordered pair: it opens at its bandwidth step and closes at the last step both
    // ranks run (latency); the copy, the sender's alone, comes after.
    expect(all.steps.slice(0, 3).map((s) => s.action)).toMatchObject([
      { kind: 'pair', from: 0, to: 1, measure: 'bandwidth', count: 256, opens: true, closes: false, fault: null },
      { kind: 'pair', from: 0, to: 1, measure: 'latency', count: 2, opens: false, closes: true },
      { kind: 'pair', from: 0, to: 1, measure: 'copy', count: 256, opens: false, closes: false },
    ]);
    const noLatency = compilePlan(scenario([{ op: 'pairs', bytes: 1024, latency: false }]));
    expect(noLatency.steps.slice(0, 2).map((s) => s.action)).toMatchObject([
      { measure: 'bandwidth', opens: true, closes: true },
      { measure: 'copy', opens: false, closes: false },
    ]);
    expect(all.steps.every((s) => !s.async)).toBe(true);
    const adjacent = compilePlan(scenario([{ op: 'pairs', mode: 'adjacent', direction: 'both', bytes: 1024, latency: false }]));
    expect(adjacent.steps.map((s) => s.label)).toEqual([
      'p2p pairs (adjacent, both ways) 0⇄1',
      'p2p pairs (adjacent, both ways) 1⇄2',
      'p2p pairs (adjacent, both ways) 2⇄3',
    ]);
    expect(adjacent.steps[0].action).toMatchObject({ kind: 'pair', both: true, opens: true, closes: true });
  });

  it('marks injected faults on their pair and refuses faults on pairs the step does not measure', () => {
    const plan = compilePlan(scenario([{ op: 'pairs', bytes: 64, copy: false, faults: [{ from: 2, to: 1, kind: 'hang' }] }]));
    const faulted = plan.steps.filter((s) => s.action.kind === 'pair' && s.action.fault !== null);
    expect(faulted.map((s) => s.label)).toEqual(['p2p pairs (all, one way) 2→1', 'p2p pairs (all, one way) latency 2→1']);
    expect(plan.pairs[0].faults).toEqual([{ from: 2, to: 1, kind: 'hang' }]);
    const refused = (faults: object[], extra: object = {}) => {
      try {
        compilePlan(scenario([{ op: 'pairs', bytes: 64, faults, ...extra }]));
      } catch (e) {
        return (e as Error).message;
      }
      return 'compiled';
    };
    expect(refused([{ from: 0, to: 2, kind: 'error' }], { mode: 'adjacent' })).toContain(
      'steps[0].faults[0]: this step does not measure the pair 0→2 (mode "adjacent": only neighbours i and i+1)',
    );
    expect(refused([{ from: 1, to: 1, kind: 'error' }])).toContain('steps[0].faults[0]: a fault joins two different ranks');
    expect(refused([{ from: 0, to: 9, kind: 'error' }])).toContain('steps[0].faults[0].to: rank 9 does not exist in a world of 4 ranks');
    expect(
      refused([
        { from: 0, to: 1, kind: 'error' },
        { from: 0, to: 1, kind: 'hang' },
      ]),
    ).toContain('steps[0].faults[1]: the pair 0→1 already has a fault (faults[0])');
    expect(
      refused(
        [
          { from: 0, to: 1, kind: 'error' },
          { from: 1, to: 0, kind: 'hang' },
        ],
        { direction: 'both' },
      ),
    ).toContain('steps[0].faults[1]: the pair 1⇄0 already has a fault (faults[0])');
    // Both ways: a fault names the pair either way round.
    expect(refused([{ from: 1, to: 0, kind: 'error' }], { direction: 'both' })).toBe('compiled');
  });

  it('numbers named streams after the default one', () => {
    const plan = compilePlan(
      scenario([{ op: 'barrier' }, { op: 'all_reduce', count: 1, stream: 'comm' }, { op: 'compute', m: 2, n: 2, k: 2, stream: 'compute' }]),
    );
    expect(plan.streams).toEqual(['default', 'comm', 'compute']);
    expect(plan.steps.map((s) => s.stream)).toEqual([0, 1, 2]);
  });

  it('wraps each compare variant run in timed block markers', () => {
    const plan = compilePlan(
      scenario([
        {
          op: 'compare',
          repeat: 2,
          variants: [
            { name: 'off', steps: [{ op: 'barrier' }] },
            { name: 'on', steps: [{ op: 'barrier' }] },
          ],
        },
      ]),
    );
    // One untimed warm-up run of each variant (repeat -1) comes first by default.
    expect(plan.steps.map((s) => s.action.kind)).toEqual(Array(6).fill(['block-begin', 'barrier', 'block-end']).flat());
    expect(
      plan.steps
        .filter((s) => s.action.kind === 'block-begin')
        .map((s) => s.origin.kind === 'compare' && `${s.origin.variant}${s.origin.repeat}`),
    ).toEqual(['off-1', 'on-1', 'off0', 'on0', 'off1', 'on1']);
    expect(plan.steps[0].label).toMatch(/off \(warm-up\) begin$/);
    const none = compilePlan(
      scenario([
        {
          op: 'compare',
          repeat: 1,
          warmup: 0,
          variants: [
            { name: 'off', steps: [{ op: 'barrier' }] },
            { name: 'on', steps: [{ op: 'barrier' }] },
          ],
        },
      ]),
    );
    expect(none.steps).toHaveLength(6);
  });

  it('knows which ranks take part in p2p and compute steps', () => {
    expect(involves({ kind: 'p2p', from: 0, to: 2, dtype: 'float32', count: 1, data: { kind: 'constant', value: 1 } }, 1)).toBe(false);
    expect(involves({ kind: 'compute', dtype: 'float16', m: 1, n: 1, k: 1, ranks: [3] }, 3)).toBe(true);
  });
});

describe('communication-only streams', () => {
  it('marks streams that carry communication and no compute step', () => {
    const plan = compilePlan(
      scenario([
        { op: 'barrier' },
        { op: 'send', from: 0, to: 1, count: 4, stream: 'comm' },
        { op: 'compute', m: 2, n: 2, k: 2, stream: 'compute' },
        { op: 'all_reduce', count: 4, stream: 'compute' },
        { op: 'all_gather', count: 4 },
      ]),
    );
    expect(plan.streams).toEqual(['default', 'comm', 'compute']);
    expect(communicationOnlyStreams(plan)).toBe(0b011);
  });

  it('leaves out a stream that only runs compute or barriers', () => {
    const plan = compilePlan(
      scenario([
        { op: 'barrier', stream: 'sync' },
        { op: 'compute', m: 2, n: 2, k: 2 },
      ]),
    );
    expect(communicationOnlyStreams(plan)).toBe(0);
  });
});
