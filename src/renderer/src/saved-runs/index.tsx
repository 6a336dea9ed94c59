// The Saved runs tab: the run records on disk; open one (a replay) or compare two.
import '../ui/ui.css';
import './saved-runs.css';
import type { ViewDescriptor, ViewProps } from '../ui/view';
import { SavedRuns } from './SavedRuns';

export const savedRunsView: ViewDescriptor = {
  id: 'runs',
  label: 'Saved runs',
  component: ({ ctx }: ViewProps) => (
    <SavedRuns
      client={ctx.client}
      refreshKey={ctx.savedRunsVersion}
      onOpen={ctx.openRun}
      requestedAb={ctx.requestedAb}
      onAbShown={ctx.abShown}
    />
  ),
};
