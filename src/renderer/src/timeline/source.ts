// What the timeline reads of a run: a saved record, or a live run's record as it grows (whose
// environment is not known yet, hence not read here).
import type { RunRecord } from '../../../shared/run/record.js';

export type TimelineSource = Pick<RunRecord, 'plan' | 'world' | 'steps' | 'events' | 'compares'>;
