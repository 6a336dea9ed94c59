// A run record read back in the order it ran: runs of plain steps, one table per sweep, one
// matrix per pairs sweep. Compare blocks are summarized apart, and waits and block markers are
// bookkeeping, not results.
import { isBookkeeping } from '../../../shared/results/results-table.js';
import type { RunRecord, StepRecord } from '../../../shared/run/record/record.js';

export type ResultSection =
  { kind: 'steps'; steps: StepRecord[] } | { kind: 'sweep'; sweep: number; steps: StepRecord[] } | { kind: 'pairs'; pairs: number };

export function resultSections(record: RunRecord): ResultSection[] {
  const sections: ResultSection[] = [];
  const seenSweeps = new Set<number>();
  const seenPairs = new Set<number>();
  for (const step of record.steps) {
    const origin = step.origin;
    if (origin.kind === 'sweep') {
      if (!seenSweeps.has(origin.sweep)) {
        seenSweeps.add(origin.sweep);
        sections.push({
          kind: 'sweep',
          sweep: origin.sweep,
          steps: record.steps.filter((s) => s.origin.kind === 'sweep' && s.origin.sweep === origin.sweep),
        });
      }
    } else if (origin.kind === 'pairs') {
      if (!seenPairs.has(origin.pairs)) {
        seenPairs.add(origin.pairs);
        sections.push({ kind: 'pairs', pairs: origin.pairs });
      }
    } else if (origin.kind === 'step' && !isBookkeeping(step)) {
      const last = sections[sections.length - 1];
      if (last?.kind === 'steps') last.steps.push(step);
      else sections.push({ kind: 'steps', steps: [step] });
    }
  }
  return sections;
}
