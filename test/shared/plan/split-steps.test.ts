// Steps on a communicator of their own: a step's or sweep's "registration": "window" (symmetric
// windows) and a sweep's "ctaPolicy", compiled to plan.comms and each step's `comm` and `registration`.
import { describe, expect, it } from 'vitest';
import { compilePlan } from '../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../src/shared/scenario/schema';

const scenario = (steps: unknown[], extra: object = {}) =>
  scenarioSchema.parse({ version: 1, name: 't', world: { ranks: 4 }, steps, ...extra });
const sweep = (over: object = {}) => ({ op: 'sweep', collective: 'all_gather', minBytes: 64, maxBytes: 128, ...over });

describe('steps on windows and sweeps with a CTA policy', () => {
  it('runs a step on windows on a communicator split for it, and a step without them on the run’s', () => {
    const plan = compilePlan(
      scenario([
        { op: 'all_reduce', count: 16, registration: 'window' },
        { op: 'all_reduce', count: 16 },
        { op: 'all_reduce', count: 16, registration: 'none' },
      ]),
    );
    expect(plan.comms).toEqual([{}]);
    expect(plan.steps.map((s) => [s.comm, s.registration])).toEqual([
      [1, 'window'],
      [undefined, undefined],
      [undefined, undefined],
    ]);
  });

  it('takes the defaults’ registration for collectives and collective sweeps, and a step’s own over it', () => {
    const plan = compilePlan(
      scenario(
        [
          { op: 'all_reduce', count: 16 },
          { op: 'all_reduce', count: 16, registration: 'none' },
          sweep(),
          { op: 'sweep', collective: 'sendrecv', minBytes: 8, maxBytes: 8 },
          { op: 'send', from: 0, to: 1, count: 4 },
          { op: 'barrier' },
        ],
        { defaults: { registration: 'window' } },
      ),
    );
    expect(plan.steps.map((s) => s.registration ?? '-')).toEqual(['window', '-', 'window', 'window', '-', '-', '-']);
    // Every windowed step shares the one communicator split for windows.
    expect(plan.comms).toEqual([{}]);
    expect(plan.steps.filter((s) => s.registration).every((s) => s.comm === 1)).toBe(true);
  });

  it("runs a sweep's CTA policy on a communicator of its own, on windows for the zero-SM policy unless told otherwise", () => {
    const plan = compilePlan(
      scenario([
        sweep({ ctaPolicy: 'efficiency' }),
        sweep({ ctaPolicy: 'zero' }),
        sweep({ ctaPolicy: 'zero', registration: 'none' }),
        sweep({ registration: 'window' }),
      ]),
    );
    expect(plan.comms).toEqual([{ ctaPolicy: 'efficiency' }, { ctaPolicy: 'zero' }, {}]);
    const bySweep = (i: number) =>
      plan.steps.filter((s) => s.origin.kind === 'sweep' && s.origin.sweep === i).map((s) => [s.comm, s.registration ?? '-']);
    expect(bySweep(0)).toEqual([
      [1, '-'],
      [1, '-'],
    ]);
    expect(bySweep(1)).toEqual([
      [2, 'window'],
      [2, 'window'],
    ]);
    expect(bySweep(2)).toEqual([
      [2, '-'],
      [2, '-'],
    ]);
    expect(bySweep(3)).toEqual([
      [3, 'window'],
      [3, 'window'],
    ]);
  });

  it('refuses windows where no symmetric kernel or every rank could take them, with the path', () => {
    expect(() => compilePlan(scenario([{ op: 'sweep', collective: 'send', minBytes: 8, maxBytes: 8, registration: 'window' }]))).toThrow(
      /steps\[0\]\.registration: "registration": "window" applies to collectives, which NCCL's symmetric kernels run; a send sweep has none/,
    );
    expect(() => compilePlan(scenario([{ op: 'sweep', collective: 'send', minBytes: 8, maxBytes: 8, ctaPolicy: 'zero' }]))).toThrow(
      /steps\[0\]\.ctaPolicy: the zero-SM policy registers each size's buffers as windows, a call of every rank, and a send sweep runs on two of the 4/,
    );
    const inBlock = scenario([
      {
        op: 'compare',
        variants: [
          { name: 'a', steps: [{ op: 'all_reduce', count: 4, registration: 'window' }] },
          { name: 'b', steps: [{ op: 'all_reduce', count: 4 }] },
        ],
      },
    ]);
    expect(() => compilePlan(inBlock)).toThrow(
      /steps\[0\]\.variants\[0\]\.steps\[0\]\.registration: "registration" applies to steps and sweeps outside compare blocks/,
    );
    // The defaults' registration stays out of compare blocks.
    const plan = compilePlan(
      scenario(
        [
          {
            op: 'compare',
            variants: [
              { name: 'a', steps: [{ op: 'all_reduce', count: 4 }] },
              { name: 'b', steps: [{ op: 'all_reduce', count: 4 }] },
            ],
          },
        ],
        { defaults: { registration: 'window' } },
      ),
    );
    expect(plan.steps.some((s) => s.registration || s.comm)).toBe(false);
  });

  it('refuses a registration or CTA policy that is not one', () => {
    expect(() => scenario([{ op: 'all_reduce', count: 4, registration: 'symmetric' }])).toThrow();
    expect(() => scenario([sweep({ ctaPolicy: 'none' })])).toThrow();
    expect(() => scenario([{ op: 'all_reduce', count: 4, ctaPolicy: 'zero' }])).toThrow();
  });
});
