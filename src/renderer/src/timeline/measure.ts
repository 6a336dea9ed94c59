// A measured range of time: marked by a Shift+drag, or by M twice (start, then end). Times are
// ns from the timeline's origin.
import { formatDuration } from '../ui/units';

export interface Measure {
  start: number;
  /** Null while only the start is marked. */
  end: number | null;
}

/** Between two times, in either order. */
export const measureBetween = (a: number, b: number): Measure => ({ start: Math.min(a, b), end: Math.max(a, b) });

/** M at time `t`: ends a measure whose start is marked, else starts a new one. */
export const markMeasure = (m: Measure | null, t: number): Measure =>
  m && m.end === null ? measureBetween(m.start, t) : { start: t, end: null };

export const measureDuration = (m: Measure): number | null => (m.end === null ? null : m.end - m.start);

export function measureText(m: Measure): string {
  const duration = measureDuration(m);
  return duration === null
    ? `measure from ${formatDuration(m.start)}: press M again at its end`
    : `Δ ${formatDuration(duration)}  (${formatDuration(m.start)} → ${formatDuration(m.end!)})`;
}
