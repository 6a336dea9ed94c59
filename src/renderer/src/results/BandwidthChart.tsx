// Bandwidth versus message size for one sweep: busbw and algbw, the α-β model dashed and NCCL's
// own prediction where recorded (sweep-chart.ts), drawn by the series chart.
import { useMemo } from 'react';
import type { SweepModel } from '../../../shared/learn/sweep-model.js';
import type { StepRecord } from '../../../shared/run/record/record.js';
import { ncclPredictedBusbw, sweepChart } from '../../../shared/export/sweep-chart.js';
import { SeriesChart } from '../ui/SeriesChart';

interface Props {
  title: string;
  steps: StepRecord[];
  /** File name of the PNG and SVG, without the extension. */
  fileStem: string;
  /** The α-β model's busbw, drawn dashed beside the measured one; null where there is none. NCCL's own prediction, where recorded, is dashed too. */
  model?: SweepModel | null;
}

export function BandwidthChart({ title, steps, fileStem, model = null }: Props) {
  const { unit, series } = useMemo(() => sweepChart(steps, model), [steps, model]);
  const canvasData = useMemo(
    () => ({
      'data-model': model ? model.algorithm : 'none',
      'data-nccl-predicted': steps.some((s) => ncclPredictedBusbw(s) !== null) ? 'yes' : 'no',
    }),
    [steps, model],
  );
  return (
    <SeriesChart
      title={title}
      unit={unit}
      series={series}
      fileStem={fileStem}
      canvasData={canvasData}
      label={`${title}: bandwidth versus size${model ? `, with the ${model.algorithm} model dashed` : ''}`}
    />
  );
}
