// The Timeline tab: the run shown, live or saved, on one clock.
import '../ui/ui.css';
import './timeline.css';
import type { ViewDescriptor, ViewProps } from '../ui/view';
import { pngTitle } from './png';
import { TimelineView } from './TimelineView';
import { TimeToAnswerBar } from './TimeToAnswerBar';

/** The run's title for its PNG: a saved or ended run's record says its backend and date. */
function titleOf(ctx: ViewProps['ctx']): string {
  const run = ctx.run!;
  const record = run.live ? null : (ctx.record?.record ?? null);
  return pngTitle({
    name: run.name,
    backend: record?.environment.backend ?? null,
    world: run.source.world,
    createdAt: record?.createdAt ?? null,
  });
}

export const timelineView: ViewDescriptor = {
  id: 'timeline',
  label: 'Timeline',
  component: ({ ctx }: ViewProps) =>
    ctx.run ? (
      <>
        {/* A finished run's: where its time went, above its timeline. */}
        {!ctx.run.live && ctx.record && <TimeToAnswerBar record={ctx.record.record} />}
        <TimelineView
          key={ctx.run.key}
          record={ctx.run.source}
          live={ctx.run.live}
          name={ctx.run.name}
          title={titleOf(ctx)}
          stepViews={ctx.stepViews}
          onOpenStep={ctx.openStep}
        />
      </>
    ) : (
      <p className="empty">No timeline yet: run the scenario, or open a saved run.</p>
    ),
};
