// How fast the Learn view plays a step: at the pace its iterations ran, slowed down by one factor
// for the whole run (a power of ten, so a step that took twice as long plays twice as long), each
// stage kept between bounds a person can follow.
import type { StepRecord } from '../../../shared/run/record/record.js';
import { formatMicroseconds } from '../../../shared/results/results-table.js';

/** On screen, the run's typical step plays for about this long. */
const TYPICAL_STEP_MS = 4000;
export const STAGE_MS_BOUNDS = [150, 4000] as const;
/** Where the step has no iteration times (not run yet, or not timed). */
export const UNTIMED_STAGE_MS = 900;

export interface LearnPace {
  /** The step's median iteration (µs); null where it has none. */
  iterationUs: number | null;
  /** How many times slower than it ran; null where untimed. */
  slowdown: number | null;
  /** On screen, per stage. */
  stageMs: number;
  /** stageMs was held inside STAGE_MS_BOUNDS (the slowed-down pace would have been too fast or too slow to follow). */
  clamped: boolean;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : null;
};

/** One slowdown for a run: the power of ten that plays its median step in about TYPICAL_STEP_MS. */
export function runSlowdown(steps: StepRecord[]): number | null {
  const m = median(steps.flatMap((s) => (s.timing && s.timing.median > 0 ? [s.timing.median] : [])));
  return m === null ? null : 10 ** Math.round(Math.log10((TYPICAL_STEP_MS * 1000) / m));
}

export function learnPace(step: StepRecord | null, stages: number, slowdown: number | null): LearnPace {
  const iterationUs = step?.timing && step.timing.median > 0 ? step.timing.median : null;
  if (iterationUs === null || slowdown === null || stages === 0)
    return { iterationUs, slowdown: null, stageMs: UNTIMED_STAGE_MS, clamped: false };
  const raw = (iterationUs * slowdown) / 1000 / stages;
  const stageMs = Math.min(STAGE_MS_BOUNDS[1], Math.max(STAGE_MS_BOUNDS[0], raw));
  return { iterationUs, slowdown, stageMs, clamped: stageMs !== raw };
}

/** `×100 000` */
export const formatSlowdown = (s: number) => `×${s.toLocaleString('en-US').replace(/,/g, ' ')}`;

/** What the pace is, in words: the step's median iteration, the slowdown, a stage on screen. */
export function paceText(pace: LearnPace, stages: number): string {
  if (pace.iterationUs === null || pace.slowdown === null)
    return `No iteration times for this step yet: one stage every ${pace.stageMs / 1000} s.`;
  const stageUs = pace.iterationUs / Math.max(1, stages);
  const held = pace.clamped
    ? ` (held at ${pace.stageMs < STAGE_MS_BOUNDS[1] ? 'the fastest' : 'the slowest'} pace shown, ${pace.stageMs} ms)`
    : '';
  return `Pace from the run: an iteration of this step took ${formatMicroseconds(pace.iterationUs)} µs (median); shown ${formatSlowdown(pace.slowdown)} slower, the same factor for every step of this run: a stage ≈ ${formatMicroseconds(stageUs)} µs → ${Math.round(pace.stageMs)} ms on screen${held}.`;
}
