// The mistakes gallery as lessons: each scenario carries its diagnosis explained, read by the CLI and the app alike.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lessonLines, lessonOf } from '../../../src/shared/learn/lessons';
import { parseScenarioText } from '../../../src/shared/plan/text';

const gallery = readdirSync('scenarios/mistakes')
  .filter((f) => f.endsWith('.scenario.json'))
  .map((f) => `scenarios/mistakes/${f}`);

describe('lessons', () => {
  it('every scenario of the mistakes gallery has a lesson: what you see, why, the fix', () => {
    expect(gallery.length).toBe(7);
    for (const file of gallery) {
      const text = readFileSync(file, 'utf8');
      const lesson = lessonOf(text);
      expect(lesson, file).not.toBeNull();
      for (const part of [lesson!.see, lesson!.why, lesson!.fix]) expect(part.length, file).toBeGreaterThan(40);
      // The same lesson as the scenario parser reads it (what `clab run` prints).
      expect(parseScenarioText(text, file).scenario.lesson).toEqual(lesson);
    }
  });

  it('scenarios without a lesson, and lessons missing a part, give none', () => {
    expect(lessonOf(readFileSync('scenarios/all-in-one.scenario.json', 'utf8'))).toBeNull();
    expect(lessonOf('{"lesson": {"see": "a", "why": "b"}}')).toBeNull();
    expect(lessonOf('not json')).toBeNull();
  });

  it('a lesson with a key it does not know is a problem in the scenario, with its path', () => {
    const text = JSON.stringify({
      version: 1,
      name: 'x',
      world: { ranks: 2 },
      lesson: { see: 'a', why: 'b', fix: 'c', hint: 'd' },
      steps: [],
    });
    expect(() => parseScenarioText(text, 'x.scenario.json')).toThrow(/lesson/);
  });

  it('prints as three lines', () => {
    expect(lessonLines({ see: 'S', why: 'W', fix: 'F' })).toEqual(['Lesson — what you see: S', '  why: W', '  fix: F']);
  });
});
