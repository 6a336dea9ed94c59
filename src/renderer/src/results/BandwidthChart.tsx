// Bandwidth versus message size for one sweep: busbw and algbw, size on a logarithmic axis.
import { useEffect, useRef } from 'react';
import type { StepRecord } from '../../../shared/record.js';
import { formatBytes } from '../../../shared/scenario/units.js';
import { Chart } from './chart';

/** Sizes are powers of two: tick at every k-th power so that about eight ticks show. */
function powerOfTwoTicks(min: number, max: number): number[] {
  const lo = Math.ceil(Math.log2(Math.max(min, 1)));
  const hi = Math.floor(Math.log2(Math.max(max, 1)));
  const every = Math.max(1, Math.ceil((hi - lo + 1) / 8));
  const ticks: number[] = [];
  for (let e = lo; e <= hi; e += every) ticks.push(2 ** e);
  return ticks;
}

export function BandwidthChart({ title, steps }: { title: string; steps: StepRecord[] }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const measured = steps.filter((s) => s.busbw !== null && s.algbw !== null && s.bytes > 0);
    const chart = new Chart(canvas.current!, {
      type: 'line',
      data: {
        datasets: [
          { label: 'busbw (GB/s)', data: measured.map((s) => ({ x: s.bytes, y: s.busbw! })), borderColor: '#2563eb', backgroundColor: '#2563eb', borderWidth: 2, order: 1 },
          // Wider and beneath, so it still shows where it equals busbw (all_reduce on 2 ranks, broadcast).
          {
            label: 'algbw (GB/s)', data: measured.map((s) => ({ x: s.bytes, y: s.algbw! })),
            borderColor: 'rgba(249, 115, 22, 0.55)', backgroundColor: 'rgba(249, 115, 22, 0.55)', borderWidth: 6, pointRadius: 4, order: 2,
          },
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
            afterBuildTicks: (axis) => { axis.ticks = powerOfTwoTicks(axis.min, axis.max).map((value) => ({ value })); },
            ticks: { callback: (value) => formatBytes(Number(value)) },
          },
          y: { type: 'linear', beginAtZero: true, title: { display: true, text: 'GB/s' } },
        },
      },
    });
    return () => chart.destroy();
  }, [title, steps]);
  return (
    <div className="chart-box">
      <canvas ref={canvas} data-testid="bandwidth-chart" aria-label={`${title}: bandwidth versus size`} />
    </div>
  );
}
