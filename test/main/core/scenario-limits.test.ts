// Hostile and mistaken scenario input: every number bounded, files limited in size before they
// are parsed, positions found in one pass, and any JSON value or mutation of a shipped scenario
// ends in problems or a plan — never a hang, a crash or an exception of another kind.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../../src/main/core/library/scenario-file';
import { lineColumns, ScenarioFileError } from '../../../src/shared/plan/text';
import { LIMITS } from '../../../src/shared/scenario/limits';
import { problems } from '../../shared/scenario/problems';

const scenario = (steps: unknown[], world: unknown = { ranks: 2 }) => JSON.stringify({ version: 1, name: 'x', world, steps });

describe('bounds on scenario numbers', () => {
  it('refuses a sweep size of 400 digits (it used to parse to Infinity and loop for ever)', () => {
    const [p] = problems(scenario([{ op: 'sweep', collective: 'all_reduce', minBytes: 1, maxBytes: '9'.repeat(400) }]));
    expect(p).toMatchObject({ path: 'steps[0].maxBytes', message: expect.stringMatching(/at most 1099511627776 bytes/) });
  });

  it('refuses a compare repeat of 100 000 000 with its path', () => {
    const variant = (name: string) => ({ name, steps: [{ op: 'barrier' }] });
    const [p] = problems(scenario([{ op: 'compare', repeat: 100_000_000, variants: [variant('a'), variant('b')] }]));
    expect(p.path).toBe('steps[0].repeat');
    expect(p.message).toBe('expected at most 1000, got 100000000');
  });

  it('refuses a plan that expands past the bound, naming the step that crossed it', () => {
    const variant = (name: string) => ({ name, steps: Array.from({ length: 60 }, () => ({ op: 'barrier' })) });
    const variants = Array.from({ length: 4 }, (_, i) => variant(`v${i}`));
    const p = problems(scenario([{ op: 'compare', repeat: 1000, warmup: 0, variants }]));
    expect(p.at(-1)!.message).toMatch(/more than 100000 steps/);
    expect(p.at(-1)!.path).toMatch(/^steps\[0\]\.variants\[\d\]/);
  });

  it('refuses 70 devices and a device listed twice', () => {
    expect(problems(scenario([{ op: 'barrier' }], { devices: Array.from({ length: 70 }, (_, i) => i) }))[0].path).toBe('world.devices');
    expect(problems(scenario([{ op: 'barrier' }], { devices: [0, 0] }))[0].message).toMatch(/each device once/);
  });

  it('refuses counts, iterations, timeouts and GEMM sizes past their bounds', () => {
    const cases: [unknown, string][] = [
      [{ op: 'all_reduce', count: 1e12 * 2 }, 'steps[0].count'],
      [{ op: 'all_reduce', count: 4, iters: 1e9 }, 'steps[0].iters'],
      [{ op: 'all_reduce', count: 4, timeoutMs: 1e12 }, 'steps[0].timeoutMs'],
      [{ op: 'compute', m: 1e7, n: 4, k: 4 }, 'steps[0].m'],
      [{ op: 'pairs', bytes: '2TiB' }, 'steps[0].bytes'],
    ];
    for (const [step, path] of cases)
      expect(
        problems(scenario([step])).map((p) => p.path),
        path,
      ).toContain(path);
  });

  it('refuses a file over the size limit before parsing it, naming the file and both sizes', () => {
    const dir = join(tmpdir(), `clab-limits-${process.pid}`);
    const file = `${dir}.scenario.json`;
    writeFileSync(file, `{${','.repeat(LIMITS.fileBytes + 1)}`);
    try {
      expect(() => loadScenarioFile(file)).toThrow(ScenarioFileError);
      try {
        loadScenarioFile(file);
      } catch (e) {
        expect((e as ScenarioFileError).problems[0]).toMatchObject({
          file,
          message: expect.stringMatching(/is 2097154 bytes; expected a scenario of at most 2097152 bytes/),
        });
      }
      expect(problems(`{${','.repeat(LIMITS.fileBytes)}`)[0].message).toMatch(/at most 2097152 bytes/);
    } finally {
      rmSync(file, { force: true });
    }
  });
});

describe('a scenario with no size to check beforehand', () => {
  it('refuses /dev/zero once more than the limit was read, saying the file goes on', () => {
    expect(() => loadScenarioFile('/dev/zero')).toThrow(
      expect.objectContaining({
        problems: [
          expect.objectContaining({
            file: '/dev/zero',
            message: expect.stringMatching(
              /^more than 2097152 bytes were read and the file goes on; expected a scenario of at most 2097152 bytes/,
            ),
          }),
        ],
      }),
    );
  });
});

describe('nesting', () => {
  it('is refused however the text around it is broken: a string left open on its line, closing brackets that close nothing', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    for (const text of [`{"name": "open string\n"steps": ${deep}}`, `{"a": 1}]]]]]]]]]]}}}}}}}}}}\n{"steps": ${deep}}`]) {
      expect(problems(text).map((p) => p.message)).toContain(
        'objects and lists are nested more than 64 deep here; a scenario needs about 10 levels',
      );
    }
  });
});

describe('positions of problems', () => {
  it('gives the same line and column as counting newlines, at every offset', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '\n', ' ', '{') }), fc.nat(), (text, n) => {
        const offset = text.length ? n % (text.length + 1) : 0;
        const before = text.slice(0, offset);
        const line = before.split('\n').length;
        const column = offset - (before.lastIndexOf('\n') + 1) + 1;
        expect(lineColumns(text)(offset)).toEqual({ line, column });
      }),
    );
  });

  it('places each of 9 000 problems of a 400 KB file on its own line', () => {
    const steps = Array.from({ length: 9_000 }, () => ({ op: 'all_reduce', count: -1 }));
    const text = JSON.stringify({ version: 1, name: 'x', world: { ranks: 2 }, steps }, null, 1);
    const p = problems(text);
    expect(p).toHaveLength(9_000);
    expect(new Set(p.map((x) => x.line)).size).toBe(9_000);
  });
});

describe('any input gives problems or a plan', () => {
  it('for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const p = problems(JSON.stringify(value));
        for (const x of p) expect(x.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  const shipped = readdirSync('scenarios')
    .filter((f) => f.endsWith('.scenario.json'))
    .map((f) => JSON.parse(readFileSync(join('scenarios', f), 'utf8')) as unknown);

  /** Every path into a JSON value, so a mutation can land anywhere in a scenario. */
  function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
    if (Array.isArray(value)) return [at, ...value.flatMap((v, i) => paths(v, [...at, i]))];
    if (value && typeof value === 'object') return [at, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...at, k]))];
    return [at];
  }
  function replaced(value: unknown, path: (string | number)[], by: unknown): unknown {
    if (!path.length) return by;
    const copy = structuredClone(value) as Record<string | number, unknown>;
    let node = copy;
    for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
    node[path.at(-1)!] = by;
    return copy;
  }
  const hostileNumbers = fc.oneof(
    fc.constantFrom(0, -1, 1e300, 2 ** 53, 2 ** 40 + 1, 100_000_000, 0.5, '9'.repeat(400), '1TiB', '2TiB', '', '\u001b[2J', '__proto__'),
    fc.jsonValue({ maxDepth: 3 }),
  );

  it('for a shipped scenario with any value put anywhere, on 1 to 8 ranks', () => {
    fc.assert(
      fc.property(fc.constantFrom(...shipped), fc.nat(), hostileNumbers, fc.integer({ min: 1, max: 8 }), (base, pick, value, ranks) => {
        const all = paths(base);
        const mutated = replaced(base, all[pick % all.length], value);
        problems(JSON.stringify(mutated, null, 2), ranks);
      }),
      { numRuns: 400 },
    );
  });

  const shippedTexts = readdirSync('scenarios')
    .filter((f) => f.endsWith('.scenario.json'))
    .map((f) => readFileSync(join('scenarios', f), 'utf8'));

  it('for a shipped scenario cut short, with a key given twice, a byte order mark, stray text or lists nested 200 000 deep put anywhere', () => {
    const edit = fc.oneof(
      fc.nat().map((at) => (t: string) => t.slice(0, at % (t.length + 1))),
      fc.nat().map((at) => (t: string) => `\uFEFF${t.slice(0, at % (t.length + 1))}\uFEFF${t.slice(at % (t.length + 1))}`),
      fc.tuple(fc.nat(), fc.string({ maxLength: 6 })).map(
        ([at, s]) =>
          (t: string) =>
            t.slice(0, at % (t.length + 1)) + s + t.slice(at % (t.length + 1)),
      ),
      fc.nat().map((n) => (t: string) => {
        // A property given again right after itself: a duplicate key (a warning), else a problem.
        const props = [...t.matchAll(/"\w+": [^,\n{[]+,/g)];
        if (!props.length) return t;
        const p = props[n % props.length];
        const end = p.index + p[0].length;
        return t.slice(0, end) + p[0] + t.slice(end);
      }),
      // Lists inside lists as a value: past a few thousand levels they overflowed the parser's
      // stack (a RangeError, not a problem) before nesting was bounded.
      fc.tuple(fc.nat(), fc.integer({ min: 1, max: 200_000 })).map(([n, depth]) => (t: string) => {
        const values = [...t.matchAll(/": ([^,\n{[]+)/g)];
        if (!values.length) return t;
        const v = values[n % values.length];
        const start = v.index + 3;
        return `${t.slice(0, start)}${'['.repeat(depth)}${']'.repeat(depth)}${t.slice(start + v[1].length)}`;
      }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...shippedTexts), fc.array(edit, { minLength: 1, maxLength: 3 }), (text, edits) => {
        const p = problems(edits.reduce((t, e) => e(t), text));
        for (const x of p) expect(x.message).not.toMatch(/\b(Invalid[A-Z]\w+|[A-Z]\w+Expected|UnexpectedEndOf\w+)\b/); // no parser code names
      }),
      { numRuns: 400 },
    );
  });
});
