// What a sweep's bandwidth chart draws, once for the app's chart.js chart and the SVG pictures:
// busbw and algbw measured, the α-β model dashed (and the other algorithms' models), NCCL's own
// prediction where the record has it; every value in the one unit that fits them all.
import { bandwidthUnitFor, type BandwidthUnit } from '../data/units.js';
import type { SweepModel } from '../learn/sweep-model.js';
import type { StepRecord } from '../run/record/record.js';
import type { ChartSeries } from './svg/line-chart.js';

/**
 * The busbw NCCL's cost table predicted (the lab's tuner plug-in): its time for the algorithm and
 * protocol it chose, with the step's own busbw factor; null where the record has none.
 */
export function ncclPredictedBusbw(s: StepRecord): number | null {
  const us = s.nccl?.predictedChosenUs;
  if (!us || !s.busbw || !s.algbw) return null;
  return (s.bytes / (us * 1e3)) * (s.busbw / s.algbw);
}

export const measuredSteps = (steps: readonly StepRecord[]): StepRecord[] =>
  steps.filter((s) => s.busbw !== null && s.algbw !== null && s.bytes > 0);

export interface SweepChart {
  unit: BandwidthUnit;
  series: ChartSeries[];
}

/** A model's busbw at each size, dashed, without markers. */
export const modelLine = (
  label: string,
  colour: string,
  dash: number[],
  rows: readonly { bytes: number; busbw: number }[],
  per: number,
) => ({
  label,
  colour,
  width: 2,
  dash,
  markers: false,
  points: rows.map((r) => ({ x: r.bytes, y: r.busbw * per })),
});

/** A value measured at each size, its points marked. */
export const measuredLine = (
  label: string,
  colour: string,
  width: number,
  steps: readonly StepRecord[],
  y: (s: StepRecord) => number,
): ChartSeries => ({
  label,
  colour,
  width,
  dash: [],
  markers: true,
  points: steps.map((s) => ({ x: s.bytes, y: y(s) })),
});

export function sweepChart(steps: readonly StepRecord[], model: SweepModel | null): SweepChart {
  const measured = measuredSteps(steps);
  const predicted = measured.filter((s) => ncclPredictedBusbw(s) !== null);
  const unit = bandwidthUnitFor([
    ...measured.flatMap((s) => [s.busbw, s.algbw, ncclPredictedBusbw(s)]),
    ...[model, ...(model?.alternatives ?? [])].flatMap((m) => m?.rows.map((r) => r.busbw) ?? []),
  ]);
  const per = unit.perGBps;
  const u = unit.name;
  const series: ChartSeries[] = [
    measuredLine(`busbw (${u})`, '#2563eb', 2, measured, (s) => s.busbw! * per),
    // Wider and beneath, so it still shows where it equals busbw (all_reduce on 2 ranks, broadcast).
    measuredLine(`algbw (${u})`, 'rgba(249, 115, 22, 0.55)', 6, measured, (s) => s.algbw! * per),
  ];
  if (model) series.push(modelLine(`${model.algorithm} model busbw (${u})`, '#16a34a', [6, 4], model.rows, per));
  if (predicted.length)
    series.push({
      label: `NCCL predicted busbw (${u})`,
      colour: '#b45309',
      width: 2,
      dash: [8, 3, 2, 3],
      markers: false,
      points: predicted.map((s) => ({ x: s.bytes, y: ncclPredictedBusbw(s)! * per })),
    });
  for (const other of model?.alternatives ?? [])
    series.push(modelLine(`${other.algorithm} model busbw (${u})`, '#9333ea', [2, 3], other.rows, per));
  return { unit, series };
}
