// The Results tab: the record of the run that ended here or was opened. Its code (and chart.js)
// loads when a record is first shown, not with the page.
import { lazy, Suspense } from 'react';
import '../ui/ui.css';
import './results.css';
import type { ViewDescriptor, ViewProps } from '../ui/view';

const ResultsView = lazy(() => import('./ResultsView').then((m) => ({ default: m.ResultsView })));

export const resultsView: ViewDescriptor = {
  id: 'results',
  label: 'Results',
  component: ({ ctx }: ViewProps) =>
    ctx.record ? (
      <Suspense fallback={<p className="empty">Loading the results…</p>}>
        <ResultsView record={ctx.record.record} source={ctx.record.source} />
      </Suspense>
    ) : (
      <p className="empty">No results yet: run the scenario, or open a saved run.</p>
    ),
  moments: ['record'],
};
