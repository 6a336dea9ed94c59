// What the A/B's chart draws: per step with a ratio, B/A and its interval (the error bar), named by
// the step and its size; steps no repeat timed on both sides have no point.
import { abStepName, type AbStep, type AbVerdict } from '../../../shared/results/nccl-ab.js';
import { formatBytes } from '../ui/units';

export interface AbChartPoint {
  label: string;
  ratio: number;
  lo: number;
  hi: number;
  verdict: AbVerdict;
}

export function abChartPoints(steps: readonly AbStep[]): AbChartPoint[] {
  return steps.flatMap((s) =>
    s.ratio === null || s.lo === null || s.hi === null
      ? []
      : [{ label: stepLabel(s), ratio: s.ratio, lo: s.lo, hi: s.hi, verdict: s.verdict }],
  );
}

/** The step's name, and its size where the name does not already end with it (a sweep's steps do). */
function stepLabel(s: AbStep): string {
  const name = abStepName(s);
  const size = formatBytes(s.bytes);
  return s.label.endsWith(size) ? name : `${name}, ${size}`;
}

/** The y axis' range, on a log scale (B twice as slow as far from 1 as twice as fast): every interval and 1 (B = A) in view, with a little room. */
export function abChartRange(points: readonly AbChartPoint[]): { min: number; max: number } {
  const lo = points.reduce((m, p) => Math.min(m, p.lo), 1);
  const hi = points.reduce((m, p) => Math.max(m, p.hi), 1);
  const pad = Math.max((hi / lo) ** 0.05, 1.01);
  return { min: lo / pad, max: hi * pad };
}

/** A verdict as the table and the chart colour it: B faster is a gain, slower a loss. */
export const verdictSense = (v: AbVerdict): 'better' | 'worse' | 'same' => (v === 'faster' ? 'better' : v === 'slower' ? 'worse' : 'same');
