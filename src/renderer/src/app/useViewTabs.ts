// Which view of the side pane is shown, which have news, and a step one view asked another to show.
// The shell names moments (a run started, a record is there), never a view: the descriptors say
// which moments bring them forward.
import { useCallback, useState } from 'react';
import type { PlanStep } from '../../../shared/plan/types.js';
import type { StepView, ViewDescriptor, ViewMoment } from '../ui/view';

export interface ViewTabs {
  active: ViewDescriptor;
  /** Views with something new since they were last shown. */
  fresh: Record<string, boolean>;
  select(id: string): void;
  /** Shows the view that this moment brings forward. */
  bring(moment: ViewMoment): void;
  /** Marks the view that this moment brings forward as having news. */
  mark(moment: ViewMoment): void;
  /** The step asked of the active view, or null. */
  requestedStep: number | null;
  stepViews(step: PlanStep): StepView[];
  openStep(view: string, step: number): void;
  forgetRequest(): void;
}

/** The view a moment brings forward: the first that lists it. */
export const viewAt = (views: readonly ViewDescriptor[], moment: ViewMoment): ViewDescriptor | undefined =>
  views.find((v) => v.moments?.includes(moment));

/** The views that can show this step, in tab order. */
export const stepViewsOf = (views: readonly ViewDescriptor[], step: PlanStep): StepView[] =>
  views.flatMap((v) => (v.showsStep?.accepts(step) ? [{ id: v.id, label: v.showsStep.label }] : []));

export function useViewTabs(views: readonly ViewDescriptor[]): ViewTabs {
  const [activeId, setActiveId] = useState(views[0].id);
  const [fresh, setFresh] = useState<Record<string, boolean>>({});
  const [request, setRequest] = useState<{ view: string; step: number } | null>(null);

  const select = useCallback((id: string) => {
    setActiveId(id);
    setFresh((f) => ({ ...f, [id]: false }));
  }, []);
  const bring = useCallback(
    (moment: ViewMoment) => {
      const view = viewAt(views, moment);
      if (view) select(view.id);
    },
    [views, select],
  );
  const mark = useCallback(
    (moment: ViewMoment) => {
      const view = viewAt(views, moment);
      if (view) setFresh((f) => ({ ...f, [view.id]: true }));
    },
    [views],
  );
  const stepViews = useCallback((step: PlanStep) => stepViewsOf(views, step), [views]);
  const openStep = useCallback(
    (view: string, step: number) => {
      setRequest({ view, step });
      select(view);
    },
    [select],
  );
  const forgetRequest = useCallback(() => setRequest(null), []);

  const active = views.find((v) => v.id === activeId) ?? views[0];
  const requestedStep = request?.view === active.id ? request.step : null;
  return { active, fresh, select, bring, mark, requestedStep, stepViews, openStep, forgetRequest };
}
