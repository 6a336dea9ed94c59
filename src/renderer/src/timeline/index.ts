import './timeline.css';

export { TimelineView } from './TimelineView';
export type { TimelineSource } from './source';
