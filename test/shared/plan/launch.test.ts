// A step's `launch` (host or graph): given in defaults or per step, carried by the plan to the ranks,
// and refused with one line where it cannot apply (the cpu backend, a compare block, a graph too large).
import { describe, expect, it } from 'vitest';
import { compilePlan } from '../../../src/shared/plan/compile';
import { worldProblemsOfValidSteps } from '../../../src/shared/plan/text';
import { scenarioSchema } from '../../../src/shared/scenario/schema';
import { problems } from '../scenario/problems';

const scenario = (steps: unknown[], extra: object = {}) =>
  scenarioSchema.parse({ version: 1, name: 't', world: { ranks: 2 }, steps, ...extra });
const text = (steps: unknown[], extra: object = {}) =>
  JSON.stringify({ version: 1, name: 't', world: { ranks: 2 }, steps, ...extra }, null, 2);
const sweep = { op: 'sweep', collective: 'all_reduce', minBytes: 8, maxBytes: 32 };

describe('launch', () => {
  it('is host unless a collective step, a sweep or the defaults say graph, and the plan carries only graph', () => {
    const plan = compilePlan(
      scenario([
        { op: 'all_reduce', count: 4 },
        { op: 'all_reduce', count: 4, launch: 'graph' },
        { ...sweep, launch: 'graph' },
        { ...sweep, collective: 'sendrecv', launch: 'host' },
      ]),
    );
    expect(plan.steps.map((s) => [s.label, s.launch])).toEqual([
      ['all_reduce', undefined],
      ['all_reduce', 'graph'],
      ['all_reduce sweep 8 B', 'graph'],
      ['all_reduce sweep 16 B', 'graph'],
      ['all_reduce sweep 32 B', 'graph'],
      ['sendrecv sweep 8 B', undefined],
      ['sendrecv sweep 16 B', undefined],
      ['sendrecv sweep 32 B', undefined],
    ]);
  });

  it('takes the defaults for collective steps and sweeps, a step of its own over them, and leaves other steps host-launched', () => {
    const plan = compilePlan(
      scenario(
        [
          { op: 'all_gather', count: 2 },
          { op: 'broadcast', count: 2, launch: 'host' },
          { ...sweep, collective: 'send', maxBytes: 8 },
          { op: 'send', from: 0, to: 1, count: 2 },
          { op: 'barrier' },
          { op: 'compute', m: 8, n: 8, k: 8 },
        ],
        { defaults: { launch: 'graph' } },
      ),
    );
    expect(plan.steps.map((s) => s.launch ?? 'host')).toEqual(['graph', 'host', 'graph', 'host', 'host', 'host']);
  });

  it('is refused by the schema where a step that cannot take it names it, and for a value other than host or graph', () => {
    expect(() => scenario([{ op: 'send', from: 0, to: 1, count: 2, launch: 'graph' }])).toThrow();
    expect(() => scenario([{ op: 'all_reduce', count: 2, launch: 'device' }])).toThrow();
    expect(problems(text([{ op: 'all_reduce', count: 2, launch: 'device' }]))[0]).toMatchObject({
      path: 'steps[0].launch',
      message: expect.stringMatching(/^expected one of host, graph, got "device"/),
    });
  });

  it('is refused with one line naming the nccl backend where the scenario runs on cpu, wherever it was asked', () => {
    const line =
      '"launch": "graph" captures the timed loop in a CUDA graph, which only the nccl backend has; this scenario\'s backend is "cpu" (set "backend": "nccl" or "auto", or "launch": "host")';
    const own = problems(
      text(
        [
          { op: 'all_reduce', count: 2 },
          { op: 'all_reduce', count: 2, launch: 'graph' },
          { ...sweep, launch: 'graph' },
        ],
        { backend: 'cpu' },
      ),
    );
    expect(own.map((p) => [p.path, p.message])).toEqual([['steps[1].launch', line]]);
    const defaults = problems(text([sweep, { op: 'all_gather', count: 2 }], { backend: 'cpu', defaults: { launch: 'graph' } }));
    expect(defaults.map((p) => [p.path, p.message])).toEqual([['defaults.launch', line]]);
    // Other backends take it, and so does cpu where the step is host-launched.
    for (const backend of ['nccl', 'auto', undefined])
      expect(problems(text([{ ...sweep, launch: 'graph' }], backend ? { backend } : {}))).toEqual([]);
    expect(problems(text([{ ...sweep, launch: 'host' }], { backend: 'cpu' }))).toEqual([]);
  });

  it('says the cpu refusal beside the problems of other steps too', () => {
    const t = text([{ op: 'all_reduce', count: 2, launch: 'graph' }, { op: 'allreduce' }], { backend: 'cpu' });
    expect(worldProblemsOfValidSteps(t, 'x.scenario.json').map((p) => p.path)).toEqual(['steps[0].launch']);
  });

  it('is refused inside a compare block, whose variants are timed as a whole, and the defaults do not reach there', () => {
    const compare = (step: object) => ({
      op: 'compare',
      repeat: 1,
      warmup: 0,
      variants: [
        { name: 'a', steps: [step] },
        { name: 'b', steps: [{ op: 'all_reduce', count: 2 }] },
      ],
    });
    expect(problems(text([compare({ op: 'all_reduce', count: 2, launch: 'graph' })])).map((p) => [p.path, p.message])).toEqual([
      [
        'steps[0].variants[0].steps[0].launch',
        '"launch" applies to steps and sweeps outside compare blocks: a block is timed as a whole, host-launched',
      ],
    ]);
    const plan = compilePlan(scenario([compare({ op: 'all_reduce', count: 2 })], { defaults: { launch: 'graph' } }));
    expect(plan.steps.filter((s) => s.launch === 'graph')).toEqual([]);
  });

  it('bounds the ops one graph captures by its iters', () => {
    expect(problems(text([{ op: 'all_reduce', count: 2, launch: 'graph', iters: 10_000 }]))).toEqual([]);
    expect(problems(text([{ op: 'all_reduce', count: 2, launch: 'graph', iters: 10_001 }]))[0]).toMatchObject({
      path: 'steps[0].iters',
      message: 'a graph-launched step captures its 10001 timed ops in one CUDA graph: expected at most 10000 iters',
    });
    expect(problems(text([{ op: 'all_reduce', count: 2, iters: 10_001 }]))).toEqual([]);
    expect(problems(text([sweep], { defaults: { launch: 'graph', iters: 20_000 } }))[0]).toMatchObject({ path: 'defaults.iters' });
  });
});
