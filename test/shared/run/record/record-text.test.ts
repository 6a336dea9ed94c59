// A run record's text: whether its start can begin a record at all, and where its JSON breaks,
// looked for only in a text small enough to look through again.
import { describe, expect, it } from 'vitest';
import { parseRecordText, recordStartProblem } from '../../../../src/shared/run/record/record-text';

const spaces = (n: number) => ' '.repeat(n);

describe("a record's start", () => {
  it('begins a record: a JSON object that names the run format, after any whitespace, cut anywhere after that', () => {
    expect(recordStartProblem('{"format": "clab.run", "version": 1, "id": "r", "scenario": {"na')).toBeNull();
    expect(recordStartProblem(`\n\t ${spaces(100)}{\n  "format": "clab.run",\n  "steps": [`)).toBeNull();
  });

  it('refuses whitespace only, what is not an object, and an object that names no run format', () => {
    const what = '(a run record is a JSON object that starts with "format": "clab.run")';
    expect(recordStartProblem(spaces(64 * 1024))).toBe(`its first 64 KiB are whitespace only ${what}`);
    expect(recordStartProblem(`  [{"format": "clab.run"}`)).toBe(`it starts with "[", not "{" ${what}`);
    expect(recordStartProblem('\u0000\u0000')).toBe(`it starts with "\\u0000", not "{" ${what}`);
    expect(recordStartProblem(`{${spaces(1000)}`)).toBe(`its first 64 KiB hold no "format" field ${what}`);
    expect(recordStartProblem('{"world": 2, "steps": [')).toBe(`its first 64 KiB hold no "format" field ${what}`);
    expect(recordStartProblem('{"format": "clab.trace"}')).toBe('its "format" is "clab.trace", not "clab.run"');
  });
});

describe('where a record breaks', () => {
  it('says at which line and column a record breaks, but in a text of more than 4 MiB only what broke', () => {
    expect(parseRecordText('{\n  "format": "clab.run",\n  "id": x')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^its JSON breaks at line 3, column 9 \(character 34 of 35\): /),
    });
    // Finding where parses the text again, slowly: seconds for tens of MiB.
    const text = `{"format": "clab.run", "notes": "${'x'.repeat(5 * 1024 * 1024)}`;
    const broken = parseRecordText(text);
    expect(broken).toMatchObject({ ok: false, kind: 'json' });
    // JSON.parse's own words, which differ between V8 versions.
    expect(!broken.ok && broken.problem).toMatch(
      new RegExp(`^its JSON breaks \\(${text.length} characters\\): Unterminated string in JSON`),
    );
  });
});
