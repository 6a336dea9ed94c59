// A run record read back in the order it ran: runs of plain steps, one table per sweep, one
// matrix per pairs sweep. Compare blocks are summarized apart, and waits and block markers are
// bookkeeping, not results.
import { isBookkeeping } from '../../../shared/results/results-table.js';
import type { RunRecord, StepRecord } from '../../../shared/run/record/record.js';
import { runParts } from '../../../shared/results/run-parts.js';

export type ResultSection =
  { kind: 'steps'; steps: StepRecord[] } | { kind: 'sweep'; sweep: number; steps: StepRecord[] } | { kind: 'pairs'; pairs: number };

export function resultSections(record: RunRecord): ResultSection[] {
  const sections: ResultSection[] = [];
  for (const part of runParts(record)) {
    if (part.kind === 'sweep') {
      const { sweep } = part;
      sections.push({ kind: 'sweep', sweep, steps: record.steps.filter((s) => s.origin.kind === 'sweep' && s.origin.sweep === sweep) });
    } else if (part.kind === 'pairs') sections.push(part);
    else if (part.step.origin.kind === 'step' && !isBookkeeping(part.step)) {
      const last = sections[sections.length - 1];
      if (last?.kind === 'steps') last.steps.push(part.step);
      else sections.push({ kind: 'steps', steps: [part.step] });
    }
  }
  return sections;
}
