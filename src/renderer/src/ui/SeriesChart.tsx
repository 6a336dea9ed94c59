// Bandwidth against message size as a chart.js line chart, from shared series (sweep-chart.ts for
// one sweep, sweep-overlay.ts for several runs): size on a logarithmic x axis, a linear or log y
// axis, and the picture as PNG or SVG. The SVG is drawn from the same series.
import { useEffect, useRef, useState } from 'react';
import type { BandwidthUnit } from '../../../shared/data/units.js';
import { lineChartSvg, type ChartSeries } from '../../../shared/export/svg/line-chart.js';
import { powerOfTwoTicks } from '../../../shared/export/svg/svg.js';
import { canvasPng, downloadBlob } from './download';
import { formatBytes, formatLogTick } from './units';
import { useColourScheme } from './theme';
import { Chart, themeCharts } from './chart';

type YScale = 'linear' | 'logarithmic';

/** A shared series as a chart.js dataset: measurements above the models, algbw wide beneath busbw. */
const dataset = (s: ChartSeries, i: number, scale: YScale) => ({
  label: s.label,
  data: s.points.filter((p) => scale === 'linear' || p.y > 0),
  borderColor: s.colour,
  backgroundColor: s.colour,
  borderWidth: s.width,
  ...(s.dash.length ? { borderDash: [...s.dash] } : {}),
  ...(s.markers ? (s.width > 2 ? { pointRadius: 4 } : {}) : { pointRadius: 0 }),
  order: s.markers ? i + 1 : 0,
});

interface Props {
  title: string;
  unit: BandwidthUnit;
  series: readonly ChartSeries[];
  /** File name of the PNG and SVG, without the extension. */
  fileStem: string;
  /** What the canvas says of itself for tests and readers: data-* attributes and its label. */
  canvasData?: Record<string, string>;
  label: string;
  testId?: string;
}

export function SeriesChart({ title, unit, series, fileStem, canvasData = {}, label, testId = 'bandwidth-chart' }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [scale, setScale] = useState<YScale>('linear');
  const [pngError, setPngError] = useState<string | null>(null);
  const scheme = useColourScheme();
  const u = unit.name;
  useEffect(() => {
    themeCharts();
    const chart = new Chart(canvas.current!, {
      type: 'line',
      data: { datasets: series.map((d, i) => dataset(d, i, scale)) },
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
  }, [title, scale, scheme, series, u]);
  const savePng = () => {
    setPngError(null);
    canvasPng(canvas.current!).then(
      (png) => downloadBlob(`${fileStem}.png`, png),
      (e: Error) => setPngError(e.message),
    );
  };
  const saveSvg = () =>
    downloadBlob(`${fileStem}.svg`, new Blob([lineChartSvg({ title, yTitle: u, yScale: scale, series })], { type: 'image/svg+xml' }));
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
        <button type="button" data-testid="chart-svg" onClick={saveSvg} title="Download this chart as an SVG picture">
          SVG
        </button>
        {pngError && (
          <span className="failed" role="alert">
            {pngError}
          </span>
        )}
      </div>
      <div className="chart-box">
        <canvas ref={canvas} data-testid={testId} data-scale={scale} data-unit={unit.name} {...canvasData} aria-label={label} />
      </div>
    </div>
  );
}
