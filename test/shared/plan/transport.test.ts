// A send's transport: NCCL by default, or a copy engine named on the send or on its group.
import { describe, expect, it } from 'vitest';
import { compilePlan } from '../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../src/shared/scenario/schema';
import { summarizeCompares, variantSerial, variantTransport } from '../../../src/shared/run/record/aggregate';
import type { StepRecord } from '../../../src/shared/run/record/record';
import type { TimelineEvent } from '../../../src/shared/run/rank/protocol';
import type { PlanStep } from '../../../src/shared/plan/types';
import { copyEngineNeedsPeerAttributes, copyEnginePairs, copyEngineRefusal } from '../../../src/shared/plan/copy-engine';

const scenario = (steps: unknown[]) => scenarioSchema.parse({ version: 1, name: 't', world: { ranks: 2 }, steps });
const send = (extra: object = {}) => ({ op: 'send', from: 0, to: 1, count: 4, ...extra });

describe('copy-engine transport', () => {
  it('reaches the plan only where named, and names the step as a copy-engine transfer', () => {
    const plan = compilePlan(scenario([send(), send({ transport: 'copy-engine' }), send({ transport: 'nccl' })]));
    expect(plan.steps.map((s) => s.label)).toEqual(['send/recv 0→1', 'copy-engine transfer 0→1', 'send/recv 0→1']);
    expect(plan.steps[0].action).not.toHaveProperty('transport');
    expect(plan.steps[1].action).toMatchObject({ kind: 'p2p', transport: 'copy-engine' });
    expect(plan.steps[2].action).not.toHaveProperty('transport');
  });

  it("applies a group's transport to each send that names none, and says so in the label", () => {
    const plan = compilePlan(
      scenario([
        { op: 'group', transport: 'copy-engine', steps: [send(), send()] },
        { op: 'group', transport: 'copy-engine', steps: [send(), send({ transport: 'nccl' })] },
      ]),
    );
    expect(plan.steps.map((s) => s.label)).toEqual(['group(2, copy engine)', 'group(2, 1 by copy engine)']);
    const items = (i: number) => (plan.steps[i].action as Extract<PlanStep['action'], { kind: 'group' }>).items;
    expect(items(0).map((a) => (a.kind === 'p2p' ? a.transport : null))).toEqual(['copy-engine', 'copy-engine']);
    expect(items(1).map((a) => (a.kind === 'p2p' ? a.transport : null))).toEqual(['copy-engine', undefined]);
  });

  it('refuses a transport it does not know, with the JSON path', () => {
    const parsed = scenarioSchema.safeParse({ version: 1, name: 't', world: { ranks: 2 }, steps: [send({ transport: 'dma' })] });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0].path).toEqual(['steps', 0, 'transport']);
  });
});

/** A plan step's record with these rank results and nothing measured across ranks. */
const stepRecordOf = (s: PlanStep, ranks: StepRecord['ranks']): StepRecord => ({
  index: s.index,
  path: s.path,
  label: s.label,
  origin: s.origin,
  action: s.action,
  verdict: 'none',
  wrong: 0,
  ranks,
  timing: null,
  bytes: 0,
  algbw: null,
  busbw: null,
  flops: null,
});

describe('a compare block against the true ideal', () => {
  const variant = (name: string, transport: string, serial: boolean) => ({
    name,
    steps: [
      { op: 'group', stream: serial ? 'compute' : 'comm', ...(serial ? {} : { async: true, id: 'r' }), transport, steps: [send()] },
      { op: 'compute', m: 8, n: 8, k: 8, ranks: [1], stream: 'compute' },
      ...(serial ? [] : [{ op: 'wait', id: 'r' }]),
    ],
  });
  const plan = compilePlan(
    scenario([
      {
        op: 'compare',
        repeat: 1,
        warmup: 0,
        variants: [
          variant('off', 'nccl', true),
          variant('off, copy engine', 'copy-engine', true),
          variant('on', 'nccl', false),
          variant('on, copy engine', 'copy-engine', false),
        ],
      },
    ]),
  );
  const own = (name: string) =>
    plan.steps.filter(
      (s) => s.origin.kind === 'compare' && s.origin.variant === name && s.action.kind !== 'block-begin' && s.action.kind !== 'block-end',
    );

  it("tells serial variants from overlapped ones, and each variant's transport", () => {
    expect(['off', 'off, copy engine', 'on', 'on, copy engine'].map((n) => [variantSerial(own(n)), variantTransport(own(n))])).toEqual([
      [true, 'nccl'],
      [true, 'copy-engine'],
      [false, 'nccl'],
      [false, 'copy-engine'],
    ]);
  });

  it('takes the fastest transfer alone and the multiply alone from the serial variants', () => {
    // Times per variant: [transfer, multiply, block].
    const times: Record<string, [number, number, number]> = {
      off: [590, 700, 1290],
      'off, copy engine': [530, 710, 1240],
      on: [600, 800, 850],
      'on, copy engine': [520, 715, 720],
    };
    const records: StepRecord[] = plan.steps.map((s) => {
      const [comm, compute, block] = times[(s.origin as { variant: string }).variant];
      const us = s.action.kind === 'group' ? comm : s.action.kind === 'compute' ? compute : s.action.kind === 'block-end' ? block : 0;
      return stepRecordOf(
        s,
        us
          ? [{ step: s.index, rank: 1, verdict: 'none', checked: 0, wrong: 0, mismatches: [], output: null, timesUs: [us], note: null }]
          : [],
      );
    });
    const [c] = summarizeCompares(plan, records);
    // The overlapped copy (520 µs) is no transfer alone: the ideal's comes from a serial variant.
    expect(c.ideal).toEqual({ us: 700, commUs: 530, commFrom: 'off, copy engine', computeUs: 700, computeFrom: 'off' });
    expect(c.variants.map((v) => v.durationUs! / c.ideal!.us)).toEqual([1290 / 700, 1240 / 700, 850 / 700, 720 / 700]);
  });

  it("says when an overlapped variant's multiply began in the block and how long the block went on after it, on the rank the block's time is", () => {
    const repeated = compilePlan(
      scenario([
        { op: 'compare', repeat: 3, warmup: 0, variants: [variant('off', 'nccl', true), variant('on, copy engine', 'copy-engine', false)] },
      ]),
    );
    const steps = repeated.steps.map((s) => stepRecordOf(s, []));
    const stepOf = (variant: string, repeat: number, kind: string) =>
      repeated.steps.find(
        (s) => s.origin.kind === 'compare' && s.origin.variant === variant && s.origin.repeat === repeat && s.action.kind === kind,
      )!.index;
    const events: TimelineEvent[] = [];
    const at = (rank: number, step: number, startUs: number, endUs: number, phase: TimelineEvent['phase'] = 'timed') =>
      events.push({ rank, stream: 1, step, name: 'x', phase, startNs: 5e9 + startUs * 1e3, endNs: 5e9 + endUs * 1e3, bytes: 0 });
    // Per repeat: rank 0 copies; rank 1 waits for the copy's end and multiplies, beginning `late` µs in.
    for (const [repeat, late, copyEnd, gemmEnd] of [
      [0, 20, 540, 733],
      [1, 30, 545, 748],
      [2, 25, 900, 740], // here rank 0's copy is the longer side: the block's time is rank 0's, with no multiply
    ]) {
      const group = stepOf('on, copy engine', repeat, 'group');
      at(0, group, 0, copyEnd);
      at(1, group, 0, gemmEnd); // its receive ends with the copy's signal, after the multiply
      at(1, stepOf('on, copy engine', repeat, 'compute'), late, gemmEnd - 3);
      // Neither the block's own marker nor host work counts.
      at(1, stepOf('on, copy engine', repeat, 'block-end'), 0, 5000, 'block');
      at(1, group, -500, 0, 'fill');
    }
    at(1, stepOf('off', 0, 'compute'), 600, 1300);
    const [c] = summarizeCompares(repeated, steps, events);
    const [off, on] = c.variants;
    expect(off).not.toHaveProperty('computeStartUs');
    // Repeats 0 and 1 (repeat 2's time is rank 0's): the medians of 20 and 30 µs, and of 3 and 3 µs.
    expect(on).toMatchObject({ computeStartUs: 25, afterComputeUs: 3 });
    // Without the events (older callers), nothing is said.
    expect(summarizeCompares(repeated, steps)[0].variants[1]).not.toHaveProperty('computeStartUs');
  });
});

describe("copy-engine transfers against the machine's GPUs", () => {
  const plan = compilePlan(
    scenarioSchema.parse({
      version: 1,
      name: 't',
      world: { devices: [0, 2, 3] },
      steps: [
        send({ transport: 'copy-engine' }),
        { op: 'group', transport: 'copy-engine', steps: [{ op: 'send', from: 2, to: 1, count: 4 }] },
        send(),
      ],
    }),
  );
  const link = (a: number, b: number, nvlinks: number, access: boolean | null) => ({
    a,
    b,
    nvlinks,
    p2p: access === null ? null : { access },
  });

  it('lists each pair a copy engine joins once, with the first step that asks for it', () => {
    expect(copyEnginePairs(plan)).toEqual([
      { from: 0, to: 1, path: 'steps[0]' },
      { from: 2, to: 1, path: 'steps[1]' },
    ]);
  });

  it("needs CUDA's peer attributes only for pairs without NVLink", () => {
    expect(copyEngineNeedsPeerAttributes(plan, [link(0, 2, 18, null), link(2, 3, 18, null)])).toBe(false);
    expect(copyEngineNeedsPeerAttributes(plan, [link(0, 2, 18, null), link(2, 3, 0, null)])).toBe(true);
  });

  it('refuses a pair of GPUs without peer access, naming the step, the ranks and the GPUs', () => {
    expect(copyEngineRefusal(plan, [link(0, 2, 18, true), link(2, 3, 0, true)])).toBeNull();
    expect(copyEngineRefusal(plan, [link(0, 2, 18, null), link(2, 3, 0, false)])).toBe(
      'steps[1]: a copy-engine transfer from rank 2 (GPU 3) to rank 1 (GPU 2) is refused: CUDA gives these GPUs no peer access, so neither GPU\'s copy engine can write into the other\'s memory; use "transport": "nccl"',
    );
  });
});

describe("a compare variant's NCCL settings", () => {
  const compare = (nccl: object, extra: object = {}) =>
    scenarioSchema.parse({
      version: 1,
      name: 't',
      world: { ranks: 2 },
      ...extra,
      steps: [
        {
          op: 'compare',
          variants: [
            { name: 'a', steps: [send()] },
            { name: 'b', nccl, steps: [send(), { op: 'compute', m: 8, n: 8, k: 8 }] },
          ],
        },
      ],
    });

  it("puts the variant's communication, and only that, on a communicator of its own, one per distinct setting", () => {
    const plan = compilePlan(compare({ maxCTAs: 4 }));
    expect(plan.comms).toEqual([{ maxCTAs: 4 }]);
    const b = plan.steps.filter((s) => s.origin.kind === 'compare' && s.origin.variant === 'b');
    expect(b.filter((s) => s.action.kind === 'p2p').every((s) => s.comm === 1)).toBe(true);
    expect(b.filter((s) => s.action.kind !== 'p2p').every((s) => s.comm === undefined)).toBe(true);
    expect(plan.steps.filter((s) => s.origin.kind === 'compare' && s.origin.variant === 'a').every((s) => s.comm === undefined)).toBe(true);
  });

  it('asks for registered buffers where the zero-SM policy is named', () => {
    expect(() => compilePlan(compare({ ctaPolicy: 'zero' }))).toThrow(
      /steps\[0\]\.variants\[1\]\.nccl\.ctaPolicy: the zero-SM policy works on window-registered buffers/,
    );
    expect(compilePlan(compare({ ctaPolicy: 'zero' }, { registerBuffers: true })).comms).toEqual([{ ctaPolicy: 'zero' }]);
  });
});
