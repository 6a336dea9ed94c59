// A run record's steps in the order they ran, as its reports read them back: each sweep and each
// pairs sweep once, at its first step; every other step on its own.
import type { RunRecord, StepRecord } from '../run/record/record.js';

export type RunPart = { kind: 'sweep'; sweep: number } | { kind: 'pairs'; pairs: number } | { kind: 'step'; step: StepRecord };

export function runParts(record: RunRecord): RunPart[] {
  const parts: RunPart[] = [];
  const seenSweeps = new Set<number>();
  const seenPairs = new Set<number>();
  for (const step of record.steps) {
    const origin = step.origin;
    if (origin.kind === 'sweep') {
      if (!seenSweeps.has(origin.sweep)) {
        seenSweeps.add(origin.sweep);
        parts.push({ kind: 'sweep', sweep: origin.sweep });
      }
    } else if (origin.kind === 'pairs') {
      if (!seenPairs.has(origin.pairs)) {
        seenPairs.add(origin.pairs);
        parts.push({ kind: 'pairs', pairs: origin.pairs });
      }
    } else parts.push({ kind: 'step', step });
  }
  return parts;
}
