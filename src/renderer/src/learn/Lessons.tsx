// The mistakes gallery as lessons: each scenario with a lesson, what the learner will see, why it
// happens and how to fix it; Open puts the scenario in the editor to run it.
import { useMemo } from 'react';
import type { Template } from '../../../shared/run/api/api.js';
import { lessonOf, type Lesson } from '../../../shared/learn/lessons.js';

interface Props {
  templates: Template[];
  onOpen(templateId: string): void;
}

/** What you will see, why, the fix. */
export function LessonText({ lesson }: { lesson: Lesson }) {
  return (
    <dl>
      <dt>What you will see</dt>
      <dd>{lesson.see}</dd>
      <dt>Why it happens</dt>
      <dd>{lesson.why}</dd>
      <dt>How to fix it</dt>
      <dd>{lesson.fix}</dd>
    </dl>
  );
}

export function Lessons({ templates, onOpen }: Props) {
  const lessons = useMemo(
    () =>
      templates.flatMap((t) => {
        const lesson = lessonOf(t.text);
        return lesson ? [{ template: t, lesson }] : [];
      }),
    [templates],
  );
  if (!lessons.length) return null;
  return (
    <section className="learn-lessons" data-testid="learn-lessons" aria-label="Lessons">
      <h3>Lessons: the mistakes gallery</h3>
      <p className="dim">
        Each scenario makes one classic mistake on purpose. Open it, run it, read the diagnosis, then compare with the explanation.
      </p>
      {lessons.map(({ template, lesson }) => (
        // The open button sits beside the summary, not in it: a control inside a summary is
        // a button in a button for keyboards and screen readers.
        <div key={template.id} className="learn-lesson" data-testid="learn-lesson">
          <details>
            <summary className="learn-lesson-name">{template.name.replace(/^Mistake:\s*/, '')}</summary>
            <LessonText lesson={lesson} />
          </details>
          <button
            type="button"
            className="small"
            data-testid="learn-lesson-open"
            aria-label={`Open ${template.name}`}
            onClick={() => onOpen(template.id)}
          >
            open
          </button>
        </div>
      ))}
    </section>
  );
}
