// Explicit values against the world and each step they are used by: problems name the file, the
// JSON path down to the list, chunk or number, and what was expected.
import { describe, expect, it } from 'vitest';
import { compileLoaded, parseScenarioText } from '../../../src/shared/plan/text';
import type { CollectiveAction } from '../../../src/shared/plan/types';
import { LIMITS } from '../../../src/shared/scenario/limits';
import { problems } from '../scenario/problems';

const text = (steps: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ version: 1, name: 'x', world: { ranks: 3 }, ...extra, steps }, null, 2);

describe('explicit values in a plan', () => {
  it('accepts a scatter_list of one chunk per rank and carries it to the plan as written', () => {
    const data = {
      kind: 'values',
      chunks: [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
    };
    const plan = compileLoaded(parseScenarioText(text([{ op: 'scatter', count: 2, data }]), 'x.scenario.json'));
    expect((plan.steps[0].action as CollectiveAction).data).toEqual(data);
  });

  it('names the chunk of the wrong length, at its line', () => {
    const t = text([{ op: 'scatter', count: 2, root: 1, data: { kind: 'values', chunks: [[1, 2], [3], [5, 6]] } }]);
    const [p, ...rest] = problems(t);
    expect(rest).toEqual([]);
    expect(p).toMatchObject({
      file: 'x.scenario.json',
      path: 'steps[0].data.chunks[1]',
      message: 'expected 2 numbers (chunk 1, for rank 1, of scatter of count 2, root 1, on 3 ranks); got 1',
    });
    expect(t.split('\n')[p.line - 1].slice(p.column - 1)).toMatch(/^\[/);
  });

  it('checks one list per rank against the world the run has (--ranks)', () => {
    const t = text([{ op: 'all_reduce', count: 1, data: { kind: 'values', perRank: [[1], [2], [3]] } }]);
    expect(problems(t)).toEqual([]);
    expect(problems(t, 4)).toMatchObject([
      { path: 'steps[0].data.perRank', message: 'expected one list per rank: the world has 4 ranks, perRank has 3' },
    ]);
  });

  it("checks a list against each step's input: count × world for an all_to_all, count for a send", () => {
    expect(problems(text([{ op: 'all_to_all', count: 2, data: { kind: 'values', values: [1, 2] } }]))).toMatchObject([
      {
        path: 'steps[0].data.values',
        message: "each rank's input to all_to_all of count 2, on 3 ranks has 6 elements: expected 6 numbers; got 2",
      },
    ]);
    expect(
      problems(
        text([
          {
            op: 'group',
            steps: [
              { op: 'send', from: 0, to: 1, count: 2, data: { kind: 'values', perRank: [[1, 2], [], []] } },
              { op: 'send', from: 1, to: 2, count: 2, data: { kind: 'values', perRank: [[1, 2], [], []] } },
            ],
          },
        ]),
      ),
    ).toMatchObject([
      {
        path: 'steps[0].steps[1].data.perRank[0]',
        message: expect.stringMatching(/^rank 0 passes no input to send 1→2 .*expected \[\]; got 2$/),
      },
      {
        path: 'steps[0].steps[1].data.perRank[1]',
        message: "rank 1's input to send 1→2 of count 2 has 2 elements: expected 2 numbers; got 0",
      },
    ]);
  });

  it('checks each number against the dtype the step resolves to', () => {
    const t = text([{ op: 'broadcast', count: 2, data: { kind: 'values', values: [1, 1000] } }], { defaults: { dtype: 'int8' } });
    expect(problems(t)).toMatchObject([
      { path: 'steps[0].data.values[1]', message: '1000 does not fit int8: expected an integer in -128…127' },
    ]);
  });

  it('reports defaults.data where a step of another size uses it, naming the step', () => {
    const t = text(
      [
        { op: 'all_reduce', count: 2 },
        { op: 'all_gather', count: 3 },
      ],
      { defaults: { data: { kind: 'values', values: [1, 2] } } },
    );
    expect(problems(t)).toMatchObject([
      {
        path: 'defaults.data.values',
        message: "as steps[1] uses it: each rank's input to all_gather of count 3, on 3 ranks has 3 elements: expected 3 numbers; got 2",
      },
    ]);
  });

  it('checks a rank that runs a step differently on purpose against its own count', () => {
    const t = text([
      { op: 'all_reduce', count: 2, perRank: { '1': { count: 3 } }, expect: 'failure', data: { kind: 'values', values: [1, 2] } },
    ]);
    expect(problems(t).filter((p) => p.severity !== 'warning')).toMatchObject([
      {
        path: 'steps[0].data.values',
        message: expect.stringMatching(/^as steps\[0\]\.perRank\.1 uses it: .* has 3 elements: expected 3 numbers; got 2$/),
      },
    ]);
  });

  it('refuses values in sweeps and pairs, whose counts follow their sizes', () => {
    const data = { kind: 'values', values: [1] };
    expect(problems(text([{ op: 'sweep', collective: 'all_reduce', minBytes: 4, maxBytes: 64, data }]))).toMatchObject([
      { path: 'steps[0].data', message: expect.stringMatching(/^a sweep chooses its own counts/) },
    ]);
    expect(problems(text([{ op: 'pairs', bytes: 4, data }]))).toMatchObject([
      { path: 'steps[0].data', message: expect.stringMatching(/^a pairs step chooses its own counts/) },
    ]);
  });

  it(`bounds the values a plan carries once compare repeats are expanded to ${LIMITS.values}`, () => {
    const count = 200_000;
    const step = { op: 'all_reduce', count, data: { kind: 'values', values: new Array(count).fill(1) } };
    const compare = {
      op: 'compare',
      repeat: 3,
      variants: [
        { name: 'a', steps: [step] },
        { name: 'b', steps: [step] },
      ],
    };
    const compact = (steps: unknown[]) => JSON.stringify({ version: 1, name: 'x', world: { ranks: 3 }, steps });
    expect(problems(compact([step]))).toEqual([]);
    expect(problems(compact([compare]))).toMatchObject([
      {
        path: 'steps[0].variants[1].steps[0].data', // the 6th of its 8 runs (1 warm-up and 3 repeats × 2) crosses the bound
        message: expect.stringMatching(/more than 1048576 explicit values once its steps are expanded/),
      },
    ]);
  });
});
