// Problems as a learner reads them: what was expected and what the file has, in words.
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { editDistance, issueMessage, nearestName } from '../../../src/shared/scenario/messages';
import { parseScenarioText, ScenarioFileError, type FileProblem } from '../../../src/shared/plan/text';

const base = { version: 1, name: 't', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 4 }] };

/** Every problem of `text` (none when it loads). */
function problems(text: string): FileProblem[] {
  try {
    parseScenarioText(text, 'x.scenario.json');
    return [];
  } catch (e) {
    if (!(e instanceof ScenarioFileError)) throw e;
    return e.problems;
  }
}
const messages = (value: unknown) => problems(JSON.stringify(value)).map((p) => `${p.path}: ${p.message}`);
const step = (s: object) => ({ ...base, steps: [s] });

describe('schema problems in words', () => {
  it('says what a number must be and what the file has', () => {
    expect(messages({ ...base, world: { ranks: 'two' } })).toEqual(['world.ranks: expected a whole number ≥ 1, got "two"']);
    expect(messages({ ...base, world: { ranks: 1.5 } })).toEqual(['world.ranks: expected a whole number ≥ 1, got 1.5']);
    expect(messages(step({ op: 'all_reduce', count: '4' }))).toEqual(['steps[0].count: expected a whole number ≥ 0, got "4"']);
    expect(messages(step({ op: 'all_reduce' }))).toEqual(['steps[0].count: expected a whole number ≥ 0, got nothing (the key is missing)']);
    expect(messages(step({ op: 'all_reduce', count: 4, data: { kind: 'constant', value: [1] } }))).toEqual([
      'steps[0].data.value: expected a number, got a list of 1',
    ]);
  });

  it('gives the bound that was passed', () => {
    expect(messages({ ...base, world: { ranks: 0 } })).toEqual(['world.ranks: expected at least 1, got 0']);
    expect(messages({ ...base, world: { ranks: 100 } })).toEqual(['world.ranks: expected at most 64, got 100']);
    expect(messages({ ...base, steps: [] })).toEqual(['steps: expected at least 1 item, got none']);
    expect(messages({ ...base, name: '' })).toEqual(['name: expected at least 1 character, got an empty string']);
    expect(messages({ ...base, name: 'n'.repeat(201) })).toEqual(['name: expected at most 200 characters, got 201 characters']);
    // A bound the schema words itself keeps its words, with what was found.
    expect(messages(step({ op: 'pairs', bytes: '4 TiB' }))).toEqual([
      'steps[0].bytes: expected at most 1099511627776 bytes (1 TiB), got "4 TiB"',
    ]);
    expect(messages(step({ op: 'pairs', bytes: '4 apples' }))).toEqual([
      'steps[0].bytes: expected a size such as 4096, "64KiB" or "1GiB", got "4 apples"',
    ]);
  });

  it('suggests the nearest operation, type or key for a misspelt one', () => {
    const [op] = messages(step({ op: 'allgather', count: 4 }));
    expect(op).toMatch(/^steps\[0\]\.op: expected one of broadcast, all_reduce, .*, compare, got "allgather": did you mean all_gather\?$/);
    expect(messages(step({ op: 'ALL_REDUCE', count: 4 }))[0]).toMatch(/did you mean all_reduce\?$/);
    expect(messages(step({ op: 'frobnicate', count: 4 }))[0]).toMatch(/got "frobnicate"$/);
    expect(messages(step({ count: 4 }))[0]).toMatch(/^steps\[0\]\.op: missing: expected one of broadcast, /);
    expect(messages(step({ op: 'all_reduce', count: 4, dtype: 'float23' }))[0]).toMatch(
      /^steps\[0\]\.dtype: expected one of float32, .*, got "float23": did you mean float32\?$/,
    );
    expect(messages(step({ op: 'all_reduce', count: 4, data: { kind: 'ranks' } }))[0]).toMatch(/got "ranks": did you mean rank\?$/);
    expect(messages(step({ op: 'all_reduce', count: 4, cuont: 4 }))).toEqual([
      'steps[0].cuont: unknown key "cuont": did you mean "count"?',
    ]);
    expect(messages(step({ op: 'barrier', zz: 1, yy: 2 }))).toEqual([
      'steps[0]: unknown keys "zz", "yy" (expected label, dtype, warmup, iters, timeoutMs, async, id, stream, op)',
    ]);
    expect(messages({ ...base, version: 2 })).toEqual(['version: expected 1, got 2']);
  });

  it('names the union branch that nearly matched, and lists the choices when none did', () => {
    const shape = z.union([
      z.object({ kind: z.literal('grid'), size: z.number() }).strict(),
      z.object({ name: z.string(), count: z.number().int().min(1) }).strict(),
    ]);
    const root = z.object({ shape });
    const raw = { shape: { name: 'x', count: 'y' } };
    const issue = root.safeParse(raw).error!.issues[0];
    expect(issue.code).toBe('invalid_union');
    expect(issueMessage(issue, root, raw)).toEqual({ path: ['shape', 'count'], message: 'expected a whole number ≥ 1, got "y"' });
    expect(messages(step({ op: 'pairs', bytes: true }))).toEqual(['steps[0].bytes: expected a whole number ≥ 0 or a string, got true']);
  });

  it('measures edit distance with transpositions and suggests only close names', () => {
    expect(editDistance('allgather', 'all_gather')).toBe(1);
    expect(editDistance('brodacast', 'broadcast')).toBe(1);
    expect(nearestName('scater', ['scatter', 'gather'])).toBe('scatter');
    expect(nearestName('all-reduce', ['all_reduce'])).toBe('all_reduce');
    expect(nearestName('xyz', ['all_reduce', 'broadcast'])).toBeNull();
  });

  it('knows a reduce op spelt out in full: maximum is max, average avg', () => {
    const redops = ['sum', 'prod', 'min', 'max', 'avg'];
    expect(redops.map((_, i) => nearestName(['summation', 'product', 'minimum', 'maximum', 'average'][i], redops))).toEqual(redops);
    expect(messages(step({ op: 'all_reduce', count: 4, redop: 'maximum' }))[0]).toMatch(/got "maximum": did you mean max\?$/);
    expect(nearestName('mean', redops)).toBeNull();
  });
});

describe('JSON problems in words', () => {
  const json = (text: string) => problems(text).map((p) => `${p.line}:${p.column} ${p.message}`);

  it('says where a truncated file ends, with no parser codes', () => {
    expect(json('{\n  "version": 1,\n  "name": "t')).toEqual([
      "3:11 invalid JSON: a string is not closed: expected '\"' before the end of the line",
      "3:13 invalid JSON: the file ends too early: expected '}' to close an object",
    ]);
    expect(json('{"world": {"ranks": 2')).toEqual(["1:22 invalid JSON: the file ends too early: expected '}' to close an object"]);
    for (const text of ['{"a": [1, 2', '{"a" 1}', "{'a': 1}", '{"a": 1,}', '{"a": 1 // no\n}', '{"a": "\\q"}', '{"a": 01}', '{} {}', '']) {
      for (const p of problems(text)) expect(p.message, text).not.toMatch(/[a-z][A-Z][a-z]/);
    }
  });

  it('explains the usual hand-editing mistakes', () => {
    expect(json('{"a": 1,}')).toEqual(["1:9 invalid JSON: a comma before '}': JSON allows none after the last item"]);
    expect(json('{"a": 1 // why\n}')[0]).toBe('1:9 invalid JSON: comments are not allowed in a scenario file (it is plain JSON)');
    expect(json("{'a': 1}")[0]).toBe('1:2 invalid JSON: unexpected "\'a\'": strings and property names need double quotes');
    expect(json('{"a": "\\q"}')).toEqual([
      '1:7 invalid JSON: an escape JSON does not know: \\q (use \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u followed by four hex digits)',
    ]);
    expect(json('')).toEqual(['1:1 the file is empty; expected a JSON object']);
    expect(json(' \n')).toEqual(['1:1 the file is empty; expected a JSON object']);
  });

  it('lists the first 20 JSON problems and counts the rest, fast, for a file of commas', () => {
    const found = problems(`{${','.repeat(1_000_000)}`);
    expect(found).toHaveLength(21);
    expect(found[20].message).toMatch(/^invalid JSON: \d+ more reports after this one/);
  });

  it('refuses nesting deeper than a scenario needs instead of overflowing the stack', () => {
    expect(json(`{"a": ${'['.repeat(100_000)}`)).toEqual([
      '1:70 objects and lists are nested more than 64 deep here; a scenario needs about 10 levels',
    ]);
    // Brackets inside strings are text.
    expect(messages({ ...base, name: '['.repeat(150) })).toEqual([]);
  });

  it('accepts a byte order mark at the start, with positions as the editor counts them', () => {
    const text = `\uFEFF${JSON.stringify({ ...base, world: { ranks: 'two' } })}`;
    const [p] = problems(text);
    expect(p).toMatchObject({ path: 'world.ranks', line: 1, column: text.indexOf('"two"') + 1 });
    expect(parseScenarioText(`\uFEFF${JSON.stringify(base)}`, 'x').scenario.name).toBe('t');
  });
});

describe('duplicate keys', () => {
  const text = '{\n  "version": 1, "name": "t", "world": {"ranks": 2},\n  "steps": [{"op": "all_reduce", "count": 4,\n    "count": 8}]\n}';

  it('load, with a warning at the key that counts naming the one ignored', () => {
    const loaded = parseScenarioText(text, 'x.scenario.json');
    expect((loaded.scenario.steps[0] as { count: number }).count).toBe(8);
    expect(loaded.warnings).toEqual([
      {
        file: 'x.scenario.json',
        path: 'steps[0].count',
        line: 4,
        column: 5,
        severity: 'warning',
        message: '"count" is given twice in this object: this value is used, the one at line 3, column 34 is ignored',
      },
    ]);
  });

  it('come after the errors of a file that does not load, and problems point at the value that counts', () => {
    const found = problems('{"version": 1, "name": "t", "world": {"ranks": 2}, "world": {"ranks": "two"}, "steps": [{"op": "barrier"}]}');
    expect(found.map((p) => [p.severity ?? 'error', p.path, p.column])).toEqual([
      ['error', 'world.ranks', 71],
      ['warning', 'world', 52],
    ]);
  });
});
