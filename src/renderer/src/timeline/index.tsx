// The Timeline tab: the run shown, live or saved, on one clock.
import '../ui/ui.css';
import './timeline.css';
import type { ViewDescriptor, ViewProps } from '../ui/view';
import { TimelineView } from './TimelineView';

export const timelineView: ViewDescriptor = {
  id: 'timeline',
  label: 'Timeline',
  component: ({ ctx }: ViewProps) =>
    ctx.run ? (
      <TimelineView
        key={ctx.run.key}
        record={ctx.run.source}
        live={ctx.run.live}
        name={ctx.run.name}
        stepViews={ctx.stepViews}
        onOpenStep={ctx.openStep}
      />
    ) : (
      <p className="empty">No timeline yet: run the scenario, or open a saved run.</p>
    ),
};
