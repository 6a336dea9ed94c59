// The Results tab: the record of the run that ended here or was opened. Its code (and chart.js)
// is not part of the page's first script: it is fetched once the page is idle, or when a record
// is shown before that.
import { lazy, Suspense } from 'react';
import '../ui/ui.css';
import './results.css';
import type { ViewDescriptor, ViewProps } from '../ui/view';
import type { ResultsView as ResultsViewComponent } from './ResultsView';

let loaded: typeof ResultsViewComponent | null = null;
const loadResultsView = () => import('./ResultsView').then((m) => (loaded = m.ResultsView));
// Once fetched, the view draws in the same render, with no fallback in between.
type Loaded = { default: typeof ResultsViewComponent };
/** A thenable that calls back at once: React's lazy then takes the module in the same render (its types ask for a Promise). */
const ready = (m: Loaded) => ({ then: (use: (m: Loaded) => void) => use(m) }) as unknown as Promise<Loaded>;
const ResultsView = lazy(() => (loaded ? ready({ default: loaded }) : loadResultsView().then((view) => ({ default: view }))));
if (typeof requestIdleCallback === 'function') requestIdleCallback(() => void loadResultsView(), { timeout: 2000 });

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
