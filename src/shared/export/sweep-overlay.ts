// Several runs' sweeps on one chart: each run's measured busbw against size in a colour of its
// own, and its α-β model dashed in the same colour, one legend entry each; every value in the
// one unit that fits them all. A run with several sweeps draws each, named by its label.
import { bandwidthUnitFor } from '../data/units.js';
import { sweepModel } from '../learn/sweep-model.js';
import type { RunRecord } from '../run/record/record.js';
import type { SweepChart } from './sweep-chart.js';
import { measuredSteps } from './sweep-chart.js';

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
    {
      label: `${l.name} busbw`,
      colour: l.colour,
      width: 2,
      dash: [],
      markers: true,
      points: l.steps.map((s) => ({ x: s.bytes, y: s.busbw! * per })),
    },
    ...(l.model
      ? [
          {
            label: `${l.name} ${l.model.algorithm} model`,
            colour: l.colour,
            width: 2,
            dash: [6, 4],
            markers: false,
            points: l.model.rows.map((m) => ({ x: m.bytes, y: m.busbw * per })),
          },
        ]
      : []),
  ]);
  return { unit, series, sweeps: lines.filter((l) => l.steps.length).length };
}
