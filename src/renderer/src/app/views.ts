// The side pane's views, in tab order; the first is shown at the start. A view is a folder that
// exports its descriptor (ui/view.ts); adding one is that folder and a line here.
import { learnView } from '../learn';
import { logView } from '../log';
import { resultsView } from '../results';
import { savedRunsView } from '../saved-runs';
import { timelineView } from '../timeline';
import type { ViewDescriptor } from '../ui/view';

export const VIEWS: readonly ViewDescriptor[] = [logView, resultsView, timelineView, learnView, savedRunsView];
