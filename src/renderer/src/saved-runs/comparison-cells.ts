// How a comparison of two runs reads in a table: the signed change, whether it is a gain or a
// loss for that metric (time down and busbw up are gains), and the spread behind "significant".
import type { Spread, StepComparison } from '../../../shared/export/index.js';
import { formatMicroseconds } from '../ui/units';

export const changeText = (pct: number | null): string => (pct === null ? 'n/a' : `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`);

/** A gain or a loss for the metric: less time is better, more bandwidth is better. */
export function changeSense(metric: 'time' | 'busbw', pct: number | null): 'better' | 'worse' | 'same' {
  if (pct === null || pct === 0) return 'same';
  return (metric === 'time') === pct < 0 ? 'better' : 'worse';
}

const spreadText = (s: Spread | null) =>
  s
    ? `median ${formatMicroseconds(s.median)} µs over ${s.samples} iterations, ${formatMicroseconds(s.min)}…${formatMicroseconds(s.max)}`
    : 'not timed';

/** The hover text of a change: why it is, or is not, marked. */
export function changeTitle(step: StepComparison): string {
  const verdict = step.significant
    ? "outside both runs' spread: each median lies outside the other run's min…max"
    : "within the runs' spread (or too few iterations to tell)";
  return `${verdict}. A: ${spreadText(step.a.spread)}; B: ${spreadText(step.b.spread)}`;
}
