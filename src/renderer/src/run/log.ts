// The live log of a run, one entry per line: each rank's result as `clab run` prints it
// (`[Rank 1] all_reduce sum: [2, 4, 6] ✓`), the timing under it, and the ranks' own log lines.
import type { LogLine, StepRecord } from '../../../shared/run/record/record.js';
import { loopStallLines, resultLines, timingLine } from '../../../shared/export/format.js';
import type { LogEntry } from '../ui/view';

export function stepEntries(step: StepRecord, nextId: number): LogEntry[] {
  if (step.action.kind === 'wait' || step.action.kind === 'block-begin' || step.action.kind === 'block-end') return [];
  const lines = resultLines(step);
  const entries: LogEntry[] = lines.map((text, i) => {
    const verdict = step.ranks[i]?.verdict;
    return { id: nextId + i, text, tone: verdict === 'pass' ? 'pass' : verdict === 'fail' ? 'fail' : 'info' };
  });
  if (step.verdict === 'error') entries.push({ id: nextId + entries.length, text: `${step.label}: error`, tone: 'error' });
  const timing = timingLine(step);
  if (timing) entries.push({ id: nextId + entries.length, text: timing, tone: 'timing' });
  for (const text of loopStallLines(step)) entries.push({ id: nextId + entries.length, text, tone: 'timing' });
  return entries;
}

export function logEntry(line: LogLine, id: number): LogEntry {
  const tone = /^error\b/i.test(line.text) ? 'error' : 'info';
  return { id, text: `${line.rank === null ? '[lab]' : `[Rank ${line.rank}]`} ${line.text}`, tone };
}
