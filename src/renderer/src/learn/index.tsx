// The Learn tab: what moved where in a step of the run shown, and the mistakes gallery as lessons.
import './learn.css';
import { useMemo } from 'react';
import { lessonOf } from '../../../shared/learn/lessons.js';
import type { ViewDescriptor, ViewProps } from '../ui/view';
import { LearnView } from './LearnView';
import { learnable } from './model';

function LearnTab({ ctx }: ViewProps) {
  const scenarioText = ctx.run?.scenarioText ?? null;
  // The scenario of the run shown, when it is one of the mistakes gallery's: its lesson.
  const lesson = useMemo(() => (scenarioText === null ? null : lessonOf(scenarioText)), [scenarioText]);
  return (
    <LearnView
      source={ctx.run?.source ?? null}
      version={ctx.run?.version ?? 0}
      paused={ctx.paused}
      onNext={ctx.next}
      templates={ctx.templates}
      onOpenLesson={ctx.openTemplate}
      requested={ctx.requestedStep}
      lesson={lesson}
    />
  );
}

export const learnView: ViewDescriptor = {
  id: 'learn',
  label: 'Learn',
  component: LearnTab,
  moments: ['step-run-started'],
  showsStep: { label: 'what moved where', accepts: learnable },
};
