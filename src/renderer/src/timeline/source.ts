// What the timeline reads of a run: the views' run source (a saved record, or a live run's as it grows).
export type { RunSource as TimelineSource } from '../ui/view';
