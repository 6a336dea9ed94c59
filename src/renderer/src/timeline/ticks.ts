// The time axis: durations as people read them (ns, µs, ms, s) and ticks at 1, 2, 5 × 10^k.

const UNITS: [number, string][] = [[1e9, 's'], [1e6, 'ms'], [1e3, 'µs'], [1, 'ns']];

/** `1.5 ms`, `250 µs`, `12 ns`: the largest unit that keeps the number at 1 or more, 3 significant digits. */
export function formatDuration(ns: number): string {
  const abs = Math.abs(ns);
  const [scale, unit] = UNITS.find(([s]) => abs >= s) ?? UNITS[UNITS.length - 1];
  const v = ns / scale;
  return `${Number(v.toPrecision(3))} ${unit}`;
}

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
  const [scale, unit] = UNITS.find(([s]) => step >= s) ?? UNITS[UNITS.length - 1];
  const v = t / scale;
  return `${Number(v.toFixed(Math.max(0, Math.ceil(-Math.log10(step / scale)))))} ${unit}`;
}
