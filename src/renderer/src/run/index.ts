import './run.css';

export { RunPanel } from './RunPanel';
export { useRun, type RunControl } from './useRun';
export { useRunSettings } from './useRunSettings';
export { buildRunRequest, remoteProblem } from './request';
