// What each rank got, as a learner reads it: `[Rank 1] all_reduce prod: [2, 3, 4] → [2, 6, 12] ✓`,
// each rank's input beside its output where the record has it, and for a reduction how the
// ranks' inputs combined.
import { learnerLines, reductionLine } from '../../../shared/learner-lines.js';
import type { StepRecord } from '../../../shared/record.js';

function StepLines({ step }: { step: StepRecord }) {
  const reduction = reductionLine(step);
  return (
    <>
      {learnerLines(step).map((line, i) => {
        const verdict = step.ranks[i]?.verdict ?? 'none';
        return <li key={i} className={`log-${verdict === 'pass' ? 'pass' : verdict === 'fail' ? 'fail' : 'info'}`} data-testid="rank-line">{line}</li>;
      })}
      {reduction && <li className="reduction-line" data-testid="reduction-line">{reduction}</li>}
    </>
  );
}

export function RankLines({ steps }: { steps: StepRecord[] }) {
  return <ol className="rank-lines">{steps.map((step) => <StepLines key={step.index} step={step} />)}</ol>;
}
