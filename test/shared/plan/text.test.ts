import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileLoaded, parseScenarioText, problemAt, worldProblemsOfValidSteps } from '../../../src/shared/plan/text';
import { checkText } from '../../../src/renderer/src/editor/useScenarioValidation';
import { problems } from '../scenario/problems';

const base = (steps: unknown[]) => JSON.stringify({ version: 1, name: 'x', world: { ranks: 2 }, steps }, null, 2);

describe('scenario files', () => {
  const shipped = readdirSync('scenarios').filter((f) => f.endsWith('.scenario.json'));

  it('ships at least the all-in-one and sweep scenarios', () => {
    expect(shipped).toEqual(expect.arrayContaining(['all-in-one.scenario.json', 'allreduce-sweep.scenario.json']));
  });

  for (const f of shipped) {
    it(`accepts the shipped scenario ${f}`, () => {
      const loaded = parseScenarioText(readFileSync(`scenarios/${f}`, 'utf8'), f);
      expect(compileLoaded(loaded).steps.length).toBeGreaterThan(0);
    });
  }

  it('reports invalid JSON with line and column', () => {
    const p = problems('{\n  "version": 1,\n  "name": "x",,\n}');
    expect(p[0]).toMatchObject({ file: 'x.scenario.json', line: 3, message: expect.stringMatching(/invalid JSON/) });
  });

  it('reports a wrong type with its JSON path, position and what was expected', () => {
    const text = base([{ op: 'all_reduce', count: '3' }]);
    const [p] = problems(text);
    expect(p.path).toBe('steps[0].count');
    expect(p.message).toBe('expected a whole number ≥ 0, got "3"');
    expect(text.split('\n')[p.line - 1].slice(p.column - 1)).toMatch(/^"3"/);
  });

  it('reports an unknown operation, lists the known ones and suggests the nearest', () => {
    const [p] = problems(base([{ op: 'allreduce', count: 3 }]));
    expect(p.path).toBe('steps[0].op');
    expect(p.message).toMatch(/^expected one of broadcast, all_reduce, .*, got "allreduce": did you mean all_reduce\?$/);
  });

  it('reports an unknown property at the property', () => {
    const [p] = problems(base([{ op: 'all_reduce', count: 3, root0: 1 }]));
    expect(p.path).toBe('steps[0].root0');
    expect(p.message).toBe('unknown key "root0": did you mean "root"?');
  });

  it('reports every problem, not just the first', () => {
    expect(
      problems(
        base([
          { op: 'all_reduce', count: -1 },
          { op: 'broadcast', count: 3, dtype: 'float8' },
        ]),
      ),
    ).toHaveLength(2);
  });

  it('reports a root outside the world with the world size', () => {
    const [p] = problems(base([{ op: 'broadcast', count: 3, root: 2 }]));
    expect(p.path).toBe('steps[0].root');
    expect(p.message).toMatch(/rank 2 does not exist in a world of 2 ranks/);
  });

  it('reports counts that do not divide evenly where the collective needs it', () => {
    const [p] = problems(base([{ op: 'reduce_scatter_tensor', count: 7 }]));
    expect(p.path).toBe('steps[0].count');
    expect(p.message).toMatch(/count 7 is not divisible by the world size 2/);
  });

  it('checks against the world given on the command line', () => {
    expect(problems(base([{ op: 'all_to_all_single', count: 12 }]), 3)).toHaveLength(0);
    expect(problems(base([{ op: 'all_to_all_single', count: 12 }]), 5)[0].path).toBe('steps[0].count');
  });

  it('refuses a send to oneself and a wait for an unknown id', () => {
    const p = problems(
      base([
        { op: 'send', from: 1, to: 1, count: 3 },
        { op: 'wait', id: 'nope' },
      ]),
    );
    expect(p.map((x) => x.path)).toEqual(['steps[0].to', 'steps[1].id']);
  });

  it('places a problem found beside the text at the path it concerns, or the deepest part of it there is', () => {
    const text = base([{ op: 'barrier' }]);
    expect(problemAt(text, 'x.scenario.json', ['world'], 'no GPUs here')).toEqual({
      file: 'x.scenario.json',
      path: 'world',
      line: 4,
      column: 12,
      message: 'no GPUs here',
    });
    expect(problemAt(text, 'x.scenario.json', ['backend'], 'b')).toMatchObject({ path: 'backend', line: 1, column: 1 });
  });
});

describe('world checks beside schema errors', () => {
  // Step 1 breaks the schema; steps 0 and 2 are valid alone but wrong for a world of 2.
  const text = base([
    { op: 'broadcast', count: 4, root: 5 },
    { op: 'all_reduce', count: 'three' },
    { op: 'send', from: 0, to: 0, count: 2 },
  ]);
  const line = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

  it('checks the valid steps against the world while another step breaks the schema', () => {
    expect(() => parseScenarioText(text, 'x.scenario.json')).toThrow(/steps\[1\]\.count/);
    const found = worldProblemsOfValidSteps(text, 'x.scenario.json');
    expect(found.map((p) => [p.path, p.line])).toEqual([
      ['steps[0].root', line('"root": 5')],
      ['steps[2].to', line('"to": 0')],
    ]);
    expect(found[0].message).toMatch(/rank 5 does not exist in a world of 2 ranks/);
    expect(found[1].message).toMatch(/cannot send to itself/);
  });

  it("checks against the ranks the run panel chose, even where the file's world is broken", () => {
    const broken = text.replace('"ranks": 2', '"ranks": "two"');
    expect(worldProblemsOfValidSteps(broken, 'x.scenario.json')).toEqual([]);
    expect(worldProblemsOfValidSteps(broken, 'x.scenario.json', { ranks: 8 }).map((p) => p.path)).toEqual(['steps[2].to']);
  });

  it('says nothing of a wait whose async step the schema refused', () => {
    const waits = base([
      { op: 'all_reduce', count: 'x', async: true, id: 'a' },
      { op: 'wait', id: 'a' },
    ]);
    expect(worldProblemsOfValidSteps(waits, 'x.scenario.json')).toEqual([]);
  });

  it('gives the editor the schema errors and the world problems together', () => {
    const checked = checkText(text, 'x.scenario.json', null, 'auto');
    expect(checked.problems.map((p) => p.path)).toEqual(['steps[1].count']);
    expect(checked.beyond.map((p) => p.path)).toEqual(['steps[0].root', 'steps[2].to']);
  });
});

describe('text nested deeper than a parser recurses', () => {
  const DEPTH = 50_000;
  const lists = `{"steps": ${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`;
  const objects = `${'{"a": '.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;
  const NESTING = 'objects and lists are nested more than 64 deep here; a scenario needs about 10 levels';

  it('is refused with the nesting problem at the JSON path of the value that opens one level too many', () => {
    expect(problems(lists)).toEqual([{ file: 'x.scenario.json', path: `steps${'[0]'.repeat(63)}`, line: 1, column: 74, message: NESTING }]);
    expect(problems(objects).map((p) => p.path)).toEqual([Array(64).fill('a').join('.')]);
  });

  it('names the keys and indices of the path as far as text cut short has them', () => {
    const text = `{"steps": [{"op": "barrier"}, {"d\\"x": ${'['.repeat(70)}`;
    expect(problems(text).map((p) => p.path)).toEqual([`steps[1].d"x${'[0]'.repeat(61)}`]);
  });

  it('has no world problems to give, and no stack to overflow, when too deep to parse', () => {
    expect(worldProblemsOfValidSteps(lists, 'x.scenario.json', { ranks: 2 })).toEqual([]);
    expect(worldProblemsOfValidSteps(objects, 'x.scenario.json', { ranks: 2 })).toEqual([]);
  });

  it('places a problem found beside such text at the start of the file', () => {
    expect(problemAt(lists, 'x.scenario.json', ['world'], 'no GPUs here')).toMatchObject({ path: 'world', line: 1, column: 1 });
  });
});
