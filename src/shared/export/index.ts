// Ways out of a run record: the results table (text, CSV, JSON), a Chrome/Perfetto trace, and a
// comparison of two runs.
export * from '../results/results-table.js';
export * from './chrome-trace.js';
export * from '../results/compare-runs.js';
