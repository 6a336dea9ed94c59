// B/A per step of an NCCL A/B: the median ratio as a point coloured by its verdict, its interval as
// an error bar (a thin floating bar from lo to hi), and B = A as a dashed line at 1.
import { useEffect, useMemo, useRef } from 'react';
import { BarController, BarElement, CategoryScale } from 'chart.js';
import type { AbStep } from '../../../shared/results/nccl-ab.js';
import { Chart, themeCharts } from '../ui/chart';
import { themeColour, useColourScheme } from '../ui/theme';
import { formatLogTick } from '../ui/units';
import { abChartPoints, abChartRange, verdictSense } from './ab-chart';

// The line chart's parts come with ui/chart; the error bars need these beside them.
Chart.register(BarController, BarElement, CategoryScale);

const SENSE_COLOUR = { better: '--pass', worse: '--fail', same: '--dim' } as const;

export function AbChart({ steps, title }: { steps: readonly AbStep[]; title: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const scheme = useColourScheme();
  const points = useMemo(() => abChartPoints(steps), [steps]);
  useEffect(() => {
    if (!points.length) return;
    themeCharts();
    const accent = themeColour('--accent');
    const range = abChartRange(points);
    const chart = new Chart<'bar' | 'line', (number | [number, number])[], string>(canvas.current!, {
      type: 'bar',
      data: {
        labels: points.map((p) => p.label),
        datasets: [
          {
            type: 'bar',
            label: 'interval of B/A',
            data: points.map((p) => [p.lo, p.hi] as [number, number]),
            backgroundColor: accent,
            barThickness: 3,
            order: 2,
          },
          {
            type: 'line',
            label: 'B/A (median over repeats)',
            data: points.map((p) => p.ratio),
            showLine: false,
            pointRadius: 5,
            pointBackgroundColor: points.map((p) => themeColour(SENSE_COLOUR[verdictSense(p.verdict)])),
            pointBorderColor: points.map((p) => themeColour(SENSE_COLOUR[verdictSense(p.verdict)])),
            backgroundColor: themeColour('--text'),
            borderColor: themeColour('--text'),
            order: 1,
          },
          {
            type: 'line',
            label: 'B = A',
            data: points.map(() => 1),
            borderColor: themeColour('--dim'),
            backgroundColor: themeColour('--dim'),
            borderWidth: 1,
            borderDash: [6, 4],
            pointRadius: 0,
            order: 3,
          },
        ],
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        plugins: { title: { display: true, text: title } },
        scales: {
          x: { title: { display: true, text: 'step, size' } },
          y: {
            type: 'logarithmic',
            ...range,
            title: { display: true, text: 'B/A time per op, log (below 1: B faster)' },
            ticks: { callback: (value) => formatLogTick(Number(value)) },
          },
        },
      },
    });
    return () => chart.destroy();
  }, [points, title, scheme]);
  if (!points.length) return <p className="empty">No step was timed on both sides: nothing to chart.</p>;
  return (
    <div className="ab-chart-box">
      <canvas
        ref={canvas}
        data-testid="ab-chart"
        data-points={points.length}
        role="img"
        aria-label={`${title}: B/A per step with its interval; ${points.length} steps`}
      />
    </div>
  );
}
