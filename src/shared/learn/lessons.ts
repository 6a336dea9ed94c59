// The mistakes gallery as lessons: a scenario's `lesson` (what the learner sees, why, the fix),
// read from the scenario text itself, so `clab run` and the app tell the same story.
import { parse } from 'jsonc-parser';
import { scenarioSchema } from '../scenario/schema.js';
import type { z } from 'zod';

export type Lesson = NonNullable<z.infer<typeof scenarioSchema>['lesson']>;

const lessonSchema = scenarioSchema.shape.lesson;

/** The lesson in a scenario's text; null where it has none (or the text does not parse). */
export function lessonOf(text: string): Lesson | null {
  const head = parse(text) as { lesson?: unknown } | undefined;
  const r = lessonSchema.safeParse(head?.lesson);
  return r.success && r.data ? r.data : null;
}

/** The lesson as `clab run` prints it after the run. */
export function lessonLines(lesson: Lesson): string[] {
  return [`Lesson — what you see: ${lesson.see}`, `  why: ${lesson.why}`, `  fix: ${lesson.fix}`];
}
