import { describe, expect, it } from 'vitest';
import { communicationOnlyStreams, compilePlan, involves } from '../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../src/shared/scenario/schema';

const scenario = (steps: unknown[], extra: object = {}) =>
  scenarioSchema.parse({ version: 1, name: 't', world: { ranks: 4 }, steps, ...extra });

describe('plan compiler', () => {
  it('applies scenario defaults and op defaults', () => {
    const plan = compilePlan(scenario([{ op: 'all_reduce', count: 3 }, { op: 'all_gather', count: 2 }], { defaults: { dtype: 'int32', iters: 5 } }));
    expect(plan.steps[0]).toMatchObject({ iters: 5, warmup: 0, action: { dtype: 'int32', redop: 'sum', inPlace: true } });
    expect(plan.steps[1].action).toMatchObject({ inPlace: false });
  });

  it('expands a sweep into one step per size with nccl-tests counts', () => {
    const plan = compilePlan(scenario([{ op: 'sweep', collective: 'all_gather', minBytes: 64, maxBytes: '1KiB' }]));
    expect(plan.steps.map((s) => (s.origin.kind === 'sweep' ? s.origin.size : 0))).toEqual([64, 128, 256, 512, 1024]);
    expect(plan.steps[0].action).toMatchObject({ kind: 'collective', op: 'all_gather', count: 4 });
  });

  it('expands pairs into every pair or adjacent pairs, grouped when both ways', () => {
    const all = compilePlan(scenario([{ op: 'pairs', bytes: 1024 }]));
    expect(all.steps.map((s) => s.label.split(' ').pop())).toEqual(['0→1', '0→2', '0→3', '1→2', '1→3', '2→3']);
    const adjacent = compilePlan(scenario([{ op: 'pairs', mode: 'adjacent', direction: 'both', bytes: 1024 }]));
    expect(adjacent.steps).toHaveLength(3);
    expect(adjacent.steps[0].action.kind).toBe('group');
  });

  it('numbers named streams after the default one', () => {
    const plan = compilePlan(scenario([{ op: 'barrier' }, { op: 'all_reduce', count: 1, stream: 'comm' }, { op: 'compute', m: 2, n: 2, k: 2, stream: 'compute' }]));
    expect(plan.streams).toEqual(['default', 'comm', 'compute']);
    expect(plan.steps.map((s) => s.stream)).toEqual([0, 1, 2]);
  });

  it('wraps each compare variant run in timed block markers', () => {
    const plan = compilePlan(scenario([{ op: 'compare', repeat: 2, variants: [
      { name: 'off', steps: [{ op: 'barrier' }] }, { name: 'on', steps: [{ op: 'barrier' }] },
    ] }]));
    // One untimed warm-up run of each variant (repeat -1) comes first by default.
    expect(plan.steps.map((s) => s.action.kind)).toEqual(Array(6).fill(['block-begin', 'barrier', 'block-end']).flat());
    expect(plan.steps.filter((s) => s.action.kind === 'block-begin').map((s) => s.origin.kind === 'compare' && `${s.origin.variant}${s.origin.repeat}`))
      .toEqual(['off-1', 'on-1', 'off0', 'on0', 'off1', 'on1']);
    expect(plan.steps[0].label).toMatch(/off \(warm-up\) begin$/);
    const none = compilePlan(scenario([{ op: 'compare', repeat: 1, warmup: 0, variants: [
      { name: 'off', steps: [{ op: 'barrier' }] }, { name: 'on', steps: [{ op: 'barrier' }] },
    ] }]));
    expect(none.steps).toHaveLength(6);
  });

  it('knows which ranks take part in p2p and compute steps', () => {
    expect(involves({ kind: 'p2p', from: 0, to: 2, dtype: 'float32', count: 1, data: { kind: 'constant', value: 1 } }, 1)).toBe(false);
    expect(involves({ kind: 'compute', dtype: 'float16', m: 1, n: 1, k: 1, ranks: [3] }, 3)).toBe(true);
  });
});

describe('communication-only streams', () => {
  it('marks streams that carry communication and no compute step', () => {
    const plan = compilePlan(scenario([
      { op: 'barrier' },
      { op: 'send', from: 0, to: 1, count: 4, stream: 'comm' },
      { op: 'compute', m: 2, n: 2, k: 2, stream: 'compute' },
      { op: 'all_reduce', count: 4, stream: 'compute' },
      { op: 'all_gather', count: 4 },
    ]));
    expect(plan.streams).toEqual(['default', 'comm', 'compute']);
    expect(communicationOnlyStreams(plan)).toBe(0b011);
  });

  it('leaves out a stream that only runs compute or barriers', () => {
    const plan = compilePlan(scenario([{ op: 'barrier', stream: 'sync' }, { op: 'compute', m: 2, n: 2, k: 2 }]));
    expect(communicationOnlyStreams(plan)).toBe(0);
  });
});
