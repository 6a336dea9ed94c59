// What each rank got, as a learner reads it: `[Rank 1] all_reduce prod: [2, 3, 4] → [2, 6, 12] ✓`,
// each rank's input beside its output where the record has it, and for a reduction how the
// ranks' inputs combined.
import { useState } from 'react';
import { learnerLines, reductionLine } from '../../../shared/export/learner-lines.js';
import type { StepRecord } from '../../../shared/run/record/record.js';
import { FIRST_PAINT_STEPS } from './first-paint';

/**
 * Steps whose lines show before "show all": a long run's thousands of lines would hold the page
 * up while it opens, and its table says the same per step. Failed steps always show.
 */
export const RANK_LINES_SHOWN = 200;

function StepLines({ step }: { step: StepRecord }) {
  const reduction = reductionLine(step);
  return (
    <>
      {learnerLines(step).map((line, i) => {
        const verdict = step.ranks[i]?.verdict ?? 'none';
        return (
          <li key={i} className={`log-${verdict === 'pass' ? 'pass' : verdict === 'fail' ? 'fail' : 'info'}`} data-testid="rank-line">
            {line}
          </li>
        );
      })}
      {reduction && (
        <li className="reduction-line" data-testid="reduction-line">
          {reduction}
        </li>
      )}
    </>
  );
}

/** `firstPaint`: the Results' first go (first-paint.ts), the first steps' lines only, and no "show all" yet. */
export function RankLines({ steps, firstPaint }: { steps: StepRecord[]; firstPaint: boolean }) {
  const [all, setAll] = useState(false);
  const bound = firstPaint ? FIRST_PAINT_STEPS : RANK_LINES_SHOWN;
  const shown = (all && !firstPaint) || steps.length <= bound ? steps : steps.filter((s, i) => i < bound || s.verdict === 'fail');
  return (
    <>
      <ol className="rank-lines">
        {shown.map((step) => (
          <StepLines key={step.index} step={step} />
        ))}
      </ol>
      {!firstPaint && shown.length < steps.length && (
        <button type="button" className="link" data-testid="rank-lines-all" onClick={() => setAll(true)}>
          show the lines of all {steps.length} steps ({steps.length - shown.length} more)
        </button>
      )}
    </>
  );
}
