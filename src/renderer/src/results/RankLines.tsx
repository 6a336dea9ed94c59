// What each rank got, as a learner reads it: `[Rank 1] all_reduce sum: [2, 4, 6] ✓`.
import { resultLines } from '../../../shared/format.js';
import type { StepRecord } from '../../../shared/record.js';

export function RankLines({ steps }: { steps: StepRecord[] }) {
  return (
    <ol className="rank-lines">
      {steps.flatMap((step) => resultLines(step).map((line, i) => {
        const verdict = step.ranks[i]?.verdict ?? 'none';
        return <li key={`${step.index}-${i}`} className={`log-${verdict === 'pass' ? 'pass' : verdict === 'fail' ? 'fail' : 'info'}`} data-testid="rank-line">{line}</li>;
      }))}
    </ol>
  );
}
