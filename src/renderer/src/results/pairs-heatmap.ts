// One pairs sweep as two sender × receiver matrices (bandwidth and time), each cell from the step
// that measured that direction. A one-way step measured from → to only: the other direction stays
// "not measured" rather than borrowing its value. A bidirectional step measured both at once.
import { formatMicroseconds } from '../../../shared/export/index.js';
import type { Plan, PairsSpec } from '../../../shared/plan/types.js';
import type { StepRecord } from '../../../shared/record.js';
import { bandwidthTime } from '../../../shared/stats.js';
import { formatGBs } from './numbers';

export type PairCell =
  | { kind: 'self' }
  | { kind: 'not-measured' }
  /** The run ended (stopped, or failed elsewhere) before this step ran or finished. */
  | { kind: 'unfinished'; step: StepRecord }
  | { kind: 'error'; step: StepRecord }
  /** value null: the step ran but has no number for this metric (e.g. untimed). */
  | { kind: 'measured'; step: StepRecord; value: number | null };

export interface PairsMetric {
  name: 'bandwidth' | 'time';
  unit: string;
  /** Whether a larger value is the better one (the colour scale says so in its legend). */
  higherIsBetter: boolean;
  /** rows[sender][receiver]. */
  rows: PairCell[][];
  /** Over the measured cells with a value; null where there are none. */
  range: { min: number; max: number } | null;
}

export interface PairsHeatmaps {
  spec: PairsSpec;
  world: number;
  bandwidth: PairsMetric;
  time: PairsMetric;
}

/** The steps of one pairs sweep by the direction they measured, "from,to". */
function stepsByDirection(steps: StepRecord[], pairs: number): Map<string, StepRecord> {
  const byDirection = new Map<string, StepRecord>();
  for (const s of steps) {
    const o = s.origin;
    if (o.kind !== 'pairs' || o.pairs !== pairs) continue;
    byDirection.set(`${o.from},${o.to}`, s);
    if (o.both) byDirection.set(`${o.to},${o.from}`, s);
  }
  return byDirection;
}

function metric(name: PairsMetric['name'], world: number, byDirection: Map<string, StepRecord>, value: (s: StepRecord) => number | null): PairsMetric {
  const rows = Array.from({ length: world }, (_, from) => Array.from({ length: world }, (_, to): PairCell => {
    if (from === to) return { kind: 'self' };
    const step = byDirection.get(`${from},${to}`);
    if (!step) return { kind: 'not-measured' };
    if (step.verdict === 'error') return { kind: 'error', step };
    if (step.verdict === 'not-run' || step.verdict === 'stopped') return { kind: 'unfinished', step };
    return { kind: 'measured', step, value: value(step) };
  }));
  const values = rows.flat().flatMap((c) => (c.kind === 'measured' && c.value !== null ? [c.value] : []));
  return {
    name,
    unit: name === 'bandwidth' ? 'GB/s' : 'µs',
    higherIsBetter: name === 'bandwidth',
    rows,
    range: values.length ? { min: Math.min(...values), max: Math.max(...values) } : null,
  };
}

export function pairsHeatmaps(plan: Plan, steps: StepRecord[], pairs: number): PairsHeatmaps {
  const byDirection = stepsByDirection(steps, pairs);
  return {
    spec: plan.pairs[pairs],
    world: plan.world,
    bandwidth: metric('bandwidth', plan.world, byDirection, (s) => s.algbw),
    time: metric('time', plan.world, byDirection, (s) => (s.timing ? bandwidthTime(s.timing) : null)),
  };
}

/** Where `value` lies in the range, 0…1; a range of one value is all at the top. */
export function rangePosition(value: number, range: { min: number; max: number }): number {
  return range.max > range.min ? (value - range.min) / (range.max - range.min) : 1;
}

/**
 * The cell's colour at position t: light to dark, blue for bandwidth (darker = faster) and orange
 * for time (darker = slower), so the eye finds the outlier pair either way.
 */
export function heatColour(name: PairsMetric['name'], t: number): string {
  const hue = name === 'bandwidth' ? 217 : 25;
  return `hsl(${hue}, 85%, ${Math.round(94 - 54 * Math.min(1, Math.max(0, t)))}%)`;
}

/** Dark cells get white text. */
export const needsLightText = (t: number) => t > 0.55;

/** A cell's number: GB/s as numbers.ts writes them, µs like the step tables. */
export const formatPairValue = (name: PairsMetric['name'], value: number): string =>
  (name === 'bandwidth' ? formatGBs(value) : formatMicroseconds(value));
