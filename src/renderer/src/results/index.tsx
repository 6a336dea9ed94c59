// The Results tab: the record of the run that ended here or was opened.
import '../ui/ui.css';
import './results.css';
import type { ViewDescriptor, ViewProps } from '../ui/view';
import { ResultsView } from './ResultsView';

export const resultsView: ViewDescriptor = {
  id: 'results',
  label: 'Results',
  component: ({ ctx }: ViewProps) =>
    ctx.record ? (
      <ResultsView record={ctx.record.record} source={ctx.record.source} />
    ) : (
      <p className="empty">No results yet: run the scenario, or open a saved run.</p>
    ),
  moments: ['record'],
};
