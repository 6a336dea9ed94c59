import './run.css';

export { RunPanel } from './RunPanel';
export { RunLog } from './RunLog';
export { useRun, type RunControl } from './useRun';
export { useRunSettings } from './useRunSettings';
