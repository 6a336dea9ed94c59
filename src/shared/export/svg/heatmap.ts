// A pairs matrix (sender row × receiver column) as an SVG heatmap, with the app's colour scale:
// light to dark, blue where higher is better (bandwidth, copy) and orange where it is worse
// (latency), so the outlier pair stands out either way.
import { formatBandwidthIn, GB_PER_S } from '../../data/units.js';
import { pairErrorWord, type PairsCell, type PairsMatrix } from '../../results/pairs.js';
import { formatMicroseconds } from '../../results/results-table.js';
import { n, svgDocument, text } from './svg.js';

/** Where `value` lies in the range, 0…1; a range of one value is all at the top. */
export function rangePosition(value: number, range: { min: number; max: number }): number {
  return range.max > range.min ? (value - range.min) / (range.max - range.min) : 1;
}

/** Lightness of the cell colour at position t (94 % light … 40 % dark). */
const lightness = (t: number) => Math.round(94 - 54 * Math.min(1, Math.max(0, t)));

/** The cell's colour at position t in the matrix' range. */
export function heatColour(metric: Pick<PairsMatrix, 'higherIsBetter'>, t: number): string {
  return `hsl(${metric.higherIsBetter ? 217 : 25}, 85%, ${lightness(t)}%)`;
}

/** A cell's number: GB/s never reading 0.00, µs as the step tables print them. */
export const formatPairValue = (metric: Pick<PairsMatrix, 'unit'>, value: number): string =>
  metric.unit === 'GB/s' ? formatBandwidthIn(value, GB_PER_S) : formatMicroseconds(value);

const CELL = 56;
const HEAD = 28;

function cellText(metric: PairsMatrix, cell: PairsCell): { label: string; fill: string; ink: string } {
  switch (cell.kind) {
    case 'self':
      return { label: '—', fill: '#f3f4f6', ink: '#4b5563' };
    case 'not-measured':
      return { label: '', fill: '#ffffff', ink: '#4b5563' };
    case 'unfinished':
      return { label: cell.step.verdict === 'stopped' ? 'stopped' : 'not run', fill: '#ffffff', ink: '#4b5563' };
    case 'error':
      return { label: pairErrorWord(cell.error?.code), fill: '#fee2e2', ink: '#991b1b' };
    case 'measured': {
      if (cell.value === null || !metric.range) return { label: 'n/a', fill: '#ffffff', ink: '#4b5563' };
      const t = rangePosition(cell.value, metric.range);
      return {
        label: `${formatPairValue(metric, cell.value)}${cell.step.verdict === 'fail' ? ' ✗' : ''}`,
        fill: heatColour(metric, t),
        ink: lightness(t) < 62 ? '#ffffff' : '#111827',
      };
    }
  }
}

export function heatmapSvg(metric: PairsMatrix): string {
  const ranks = metric.rows.length;
  const left = 70;
  const top = 40 + HEAD;
  const width = Math.max(left + ranks * CELL + 16, 280);
  const height = top + ranks * CELL + 30;
  const body = [
    text(8, 20, metric.title, { size: 14, weight: 600 }),
    text(left, top - HEAD - 4, 'sender (row) → receiver (column)', { fill: '#4b5563' }),
  ];
  for (let r = 0; r < ranks; r++) {
    body.push(text(left + r * CELL + CELL / 2, top - 8, String(r), { anchor: 'middle', weight: 600 }));
    body.push(text(left - 10, top + r * CELL + CELL / 2 + 4, String(r), { anchor: 'end', weight: 600 }));
  }
  metric.rows.forEach((row, from) =>
    row.forEach((cell, to) => {
      const { label, fill, ink } = cellText(metric, cell);
      const x = left + to * CELL;
      const y = top + from * CELL;
      body.push(`<rect x="${n(x)}" y="${n(y)}" width="${CELL}" height="${CELL}" fill="${fill}" stroke="#d1d5db"/>`);
      if (label) body.push(text(x + CELL / 2, y + CELL / 2 + 4, label, { anchor: 'middle', fill: ink, size: 11 }));
    }),
  );
  body.push(text(left, top + ranks * CELL + 20, metric.higherIsBetter ? 'darker is faster' : 'darker is slower', { fill: '#4b5563' }));
  return svgDocument(width, height, metric.title, body);
}
