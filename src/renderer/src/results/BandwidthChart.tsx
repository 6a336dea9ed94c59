// Bandwidth versus message size for one sweep: busbw and algbw, size on a logarithmic axis. The
// y axis is linear by default; log makes the small sizes readable beside the large ones.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { SweepModel } from '../../../shared/learn/sweep-model.js';
import type { StepRecord } from '../../../shared/run/record/record.js';
import { canvasPng, downloadBlob } from '../ui/download';
import { bandwidthUnitFor, formatBytes, formatLogTick } from '../ui/units';
import { useColourScheme } from '../ui/theme';
import { Chart, themeCharts } from './chart';

type YScale = 'linear' | 'logarithmic';

/** Sizes are powers of two: tick at every k-th power so that about eight ticks show. */
function powerOfTwoTicks(min: number, max: number): number[] {
  const lo = Math.ceil(Math.log2(Math.max(min, 1)));
  const hi = Math.floor(Math.log2(Math.max(max, 1)));
  const every = Math.max(1, Math.ceil((hi - lo + 1) / 8));
  const ticks: number[] = [];
  for (let e = lo; e <= hi; e += every) ticks.push(2 ** e);
  return ticks;
}

/**
 * The busbw NCCL's cost table predicted (the lab's tuner plug-in): its time for the algorithm and
 * protocol it chose, with the step's own busbw factor; null where the record has none.
 */
function ncclPredictedBusbw(s: StepRecord): number | null {
  const us = s.nccl?.predictedChosenUs;
  if (!us || !s.busbw || !s.algbw) return null;
  return (s.bytes / (us * 1e3)) * (s.busbw / s.algbw);
}

/** Points the y scale can show: a log axis has no place for 0 (e.g. busbw on one rank). */
function points(steps: StepRecord[], y: (s: StepRecord) => number, scale: YScale, perGBps: number) {
  return steps.map((s) => ({ x: s.bytes, y: y(s) * perGBps })).filter((p) => scale === 'linear' || p.y > 0);
}

const measuredSteps = (steps: StepRecord[]) => steps.filter((s) => s.busbw !== null && s.algbw !== null && s.bytes > 0);

/** Every bandwidth the chart draws, GB/s: what picks its unit. */
function drawnBandwidths(steps: StepRecord[], model: SweepModel | null): number[] {
  return [
    ...steps.flatMap((s) => [s.busbw ?? 0, s.algbw ?? 0, ncclPredictedBusbw(s) ?? 0]),
    ...[model, ...(model?.alternatives ?? [])].flatMap((m) => m?.rows.map((r) => r.busbw) ?? []),
  ];
}

interface Props {
  title: string;
  steps: StepRecord[];
  /** File name of the PNG, without the extension. */
  fileStem: string;
  /** The α-β model's busbw, drawn dashed beside the measured one; null where there is none. NCCL's own prediction, where recorded, is dashed too. */
  model?: SweepModel | null;
}

export function BandwidthChart({ title, steps, fileStem, model = null }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [scale, setScale] = useState<YScale>('linear');
  const [pngError, setPngError] = useState<string | null>(null);
  const scheme = useColourScheme();
  const unit = useMemo(() => bandwidthUnitFor(drawnBandwidths(measuredSteps(steps), model)), [steps, model]);
  useEffect(() => {
    themeCharts();
    const measured = measuredSteps(steps);
    const { name: u, perGBps } = unit;
    const modelPoints = (rows: readonly { bytes: number; busbw: number }[]) =>
      rows.map((r) => ({ x: r.bytes, y: r.busbw * perGBps })).filter((p) => scale === 'linear' || p.y > 0);
    const chart = new Chart(canvas.current!, {
      type: 'line',
      data: {
        datasets: [
          {
            label: `busbw (${u})`,
            data: points(measured, (s) => s.busbw!, scale, perGBps),
            borderColor: '#2563eb',
            backgroundColor: '#2563eb',
            borderWidth: 2,
            order: 1,
          },
          // Wider and beneath, so it still shows where it equals busbw (all_reduce on 2 ranks, broadcast).
          {
            label: `algbw (${u})`,
            data: points(measured, (s) => s.algbw!, scale, perGBps),
            borderColor: 'rgba(249, 115, 22, 0.55)',
            backgroundColor: 'rgba(249, 115, 22, 0.55)',
            borderWidth: 6,
            pointRadius: 4,
            order: 2,
          },
          ...(model
            ? [
                {
                  label: `${model.algorithm} model busbw (${u})`,
                  data: modelPoints(model.rows),
                  borderColor: '#16a34a',
                  backgroundColor: '#16a34a',
                  borderWidth: 2,
                  borderDash: [6, 4],
                  pointRadius: 0,
                  order: 0,
                },
              ]
            : []),
          ...(measured.some((s) => ncclPredictedBusbw(s) !== null)
            ? [
                {
                  label: `NCCL predicted busbw (${u})`,
                  data: points(
                    measured.filter((s) => ncclPredictedBusbw(s) !== null),
                    (s) => ncclPredictedBusbw(s)!,
                    scale,
                    perGBps,
                  ),
                  borderColor: '#b45309',
                  backgroundColor: '#b45309',
                  borderWidth: 2,
                  borderDash: [8, 3, 2, 3],
                  pointRadius: 0,
                  order: 0,
                },
              ]
            : []),
          ...(model?.alternatives ?? []).map((other) => ({
            label: `${other.algorithm} model busbw (${u})`,
            data: modelPoints(other.rows),
            borderColor: '#9333ea',
            backgroundColor: '#9333ea',
            borderWidth: 2,
            borderDash: [2, 3],
            pointRadius: 0,
            order: 0,
          })),
        ],
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        parsing: false,
        plugins: {
          title: { display: true, text: title },
          tooltip: { callbacks: { title: (items) => formatBytes(Number(items[0]?.parsed.x ?? 0)) } },
        },
        scales: {
          x: {
            type: 'logarithmic',
            title: { display: true, text: 'message size' },
            afterBuildTicks: (axis) => {
              axis.ticks = powerOfTwoTicks(axis.min, axis.max).map((value) => ({ value }));
            },
            ticks: { callback: (value) => formatBytes(Number(value)) },
          },
          y:
            scale === 'linear'
              ? { type: 'linear', beginAtZero: true, title: { display: true, text: u } }
              : {
                  type: 'logarithmic',
                  title: { display: true, text: `${u} (log)` },
                  ticks: { callback: (value) => formatLogTick(Number(value)) },
                },
        },
      },
    });
    return () => chart.destroy();
  }, [title, steps, scale, model, scheme, unit]);
  const savePng = () => {
    setPngError(null);
    canvasPng(canvas.current!).then(
      (png) => downloadBlob(`${fileStem}.png`, png),
      (e: Error) => setPngError(e.message),
    );
  };
  return (
    <div className="chart">
      <div className="chart-tools">
        <label>
          y axis{' '}
          <select data-testid="chart-scale" value={scale} onChange={(e) => setScale(e.target.value as YScale)}>
            <option value="linear">linear</option>
            <option value="logarithmic">log</option>
          </select>
        </label>
        <button type="button" data-testid="chart-png" onClick={savePng} title="Download this chart as a PNG image">
          PNG
        </button>
        {pngError && (
          <span className="failed" role="alert">
            {pngError}
          </span>
        )}
      </div>
      <div className="chart-box">
        <canvas
          ref={canvas}
          data-testid="bandwidth-chart"
          data-scale={scale}
          data-unit={unit.name}
          data-model={model ? model.algorithm : 'none'}
          data-nccl-predicted={steps.some((s) => ncclPredictedBusbw(s) !== null) ? 'yes' : 'no'}
          aria-label={`${title}: bandwidth versus size${model ? `, with the ${model.algorithm} model dashed` : ''}`}
        />
      </div>
    </div>
  );
}
