import './results.css';

export { ResultsView, type ResultsSource } from './ResultsView';
export { SavedRuns } from './SavedRuns';
