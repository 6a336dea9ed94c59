// The editor's check of its text (useScenarioValidation's checkText): text nested too deep to parse
// is one problem the editor always shows, never an error thrown in the page.
import { describe, expect, it } from 'vitest';
import { checkText } from '../../../src/renderer/src/editor/useScenarioValidation';

const FILE = 'deep.scenario.json';
const NESTING = 'objects and lists are nested more than 64 deep here; a scenario needs about 10 levels';
const nested = (depth: number) => `{"version": 1, "name": "d", "world": {"ranks": 2}, "steps": ${'['.repeat(depth)}${']'.repeat(depth)}}`;
const deepPath = `steps${'[0]'.repeat(63)}`;

describe("the editor's check of text nested too deep", () => {
  it('shows lists nested 50 000 deep as the nesting problem alone', () => {
    const checked = checkText(nested(50_000), FILE, 2, 'auto');
    expect(checked.problems).toEqual([]);
    expect(checked.beyond).toEqual([{ file: FILE, path: deepPath, line: 1, column: 124, message: NESTING }]);
    expect(checked.backend).toBeNull();
  });

  it('shows objects nested 50 000 deep, and such text cut short, as the nesting problem alone', () => {
    const objects = `${'{"a": '.repeat(50_000)}1${'}'.repeat(50_000)}`;
    for (const text of [objects, objects.slice(0, 400_000)]) {
      const checked = checkText(text, FILE, null, 'auto');
      expect(checked.problems).toEqual([]);
      expect(checked.beyond.map((p) => `${p.line}:${p.column} ${p.path}: ${p.message}`)).toEqual([
        `1:385 ${Array(64).fill('a').join('.')}: ${NESTING}`,
      ]);
    }
  });

  it("shows nesting that Monaco's JSON mode still parses among the problems it always shows", () => {
    // 100 deep: Monaco parses it and marks this line for the schema, which hides a lab problem of its kind there.
    expect(checkText(nested(100), FILE, 2, 'auto').beyond.map((p) => p.message)).toEqual([NESTING]);
  });
});
