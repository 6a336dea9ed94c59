// A time axis (the timeline's, the Learn view's pace): ticks at 1, 2, 5 × 10^k, labelled in
// durations as people read them (ns, µs, ms, s).
import { DURATION_UNITS } from './units';

/** The smallest 1/2/5 × 10^k step that leaves at most `maxTicks` ticks over `span`. */
export function tickStep(span: number, maxTicks: number): number {
  const rough = span / Math.max(1, maxTicks);
  const power = 10 ** Math.floor(Math.log10(rough));
  for (const m of [1, 2, 5, 10]) if (m * power >= rough) return m * power;
  return 10 * power;
}

/** Tick times in [start, end] at multiples of the step. */
export function timeTicks(start: number, end: number, maxTicks: number): { step: number; ticks: number[] } {
  if (!(end > start)) return { step: 1, ticks: [] };
  const step = tickStep(end - start, maxTicks);
  const ticks: number[] = [];
  for (let k = Math.ceil(start / step); k * step <= end; k++) ticks.push(k * step);
  return { step, ticks };
}

/** A tick's label: the unit chosen by the step, so that neighbouring labels read alike (0, 200 µs, 400 µs…). */
export function tickLabel(t: number, step: number): string {
  const [scale, unit] = DURATION_UNITS.find(([s]) => step >= s) ?? DURATION_UNITS[DURATION_UNITS.length - 1];
  const v = t / scale;
  return `${Number(v.toFixed(Math.max(0, Math.ceil(-Math.log10(step / scale)))))} ${unit}`;
}
