// Several runs' sweeps on one chart: each run's measured busbw against size in a colour of its
// own, and its α-β model dashed in the same colour, one legend entry each; every value in the
// one unit that fits them all. A run with several sweeps draws each, named by its label.
import { bandwidthUnitFor } from '../data/units.js';
import { sweepModel } from '../learn/sweep-model.js';
import type { RunRecord } from '../run/record/record.js';
import type { SweepChart } from './sweep-chart.js';
import { measuredLine, measuredSteps, modelLine } from './sweep-chart.js';

/** Runs one chart overlays at most: beyond this the colours stop telling them apart. */
export const MAX_OVERLAID_RUNS = 8;

/** One colour a run, apart from each other and readable on both themes' chart backgrounds. */
export const RUN_COLOURS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#d97706', '#0891b2', '#db2777', '#65a30d'] as const;

export interface OverlaidRun {
  name: string;
  record: Pick<RunRecord, 'plan' | 'steps' | 'environment'>;
}

export function sweepOverlay(runs: readonly OverlaidRun[]): SweepChart & { sweeps: number } {
  if (runs.length > MAX_OVERLAID_RUNS) throw new Error(`at most ${MAX_OVERLAID_RUNS} runs on one chart, not ${runs.length}`);
  const lines = runs.flatMap((run, r) =>
    run.record.plan.sweeps.map((sweep, i) => {
      const steps = measuredSteps(run.record.steps.filter((s) => s.origin.kind === 'sweep' && s.origin.sweep === i));
      const model = sweepModel(run.record.plan, run.record.environment, run.record.steps, i);
      const name = run.record.plan.sweeps.length > 1 ? `${run.name}: ${sweep.label}` : run.name;
      return { name, colour: RUN_COLOURS[r], steps, model };
    }),
  );
  const unit = bandwidthUnitFor(lines.flatMap((l) => [...l.steps.map((s) => s.busbw), ...(l.model?.rows.map((m) => m.busbw) ?? [])]));
  const per = unit.perGBps;
  const series = lines.flatMap((l) => [
    measuredLine(`${l.name} busbw`, l.colour, 2, l.steps, (s) => s.busbw! * per),
    ...(l.model ? [modelLine(`${l.name} ${l.model.algorithm} model`, l.colour, [6, 4], l.model.rows, per)] : []),
  ]);
  return { unit, series, sweeps: lines.filter((l) => l.steps.length).length };
}
