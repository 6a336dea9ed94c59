// One pairs step as sender × receiver heatmaps (bandwidth, latency, plain copy), from the shared
// pairs view (src/shared/results/pairs.ts, which the CLI's matrices read too): each cell from the step that
// measured that direction, a one-way step's reverse left "not measured" rather than borrowed.
// Here: what the app adds, the colour scale and the numbers' text.
import { pairsView, type PairLink, type PairsCell, type PairsMatrix, type PairsView } from '../../../shared/results/pairs.js';
import type { RunRecord } from '../../../shared/run/record/record.js';
import { textOn } from '../ui/contrast';
import { formatBytes, formatGBs, formatMicroseconds } from '../ui/units';

export type PairCell = PairsCell;
export type PairsMetric = PairsMatrix;
export type PairsHeatmaps = PairsView;
export type { PairLink };

export function pairsHeatmaps(record: Pick<RunRecord, 'plan' | 'steps' | 'environment'>, pairs: number): PairsHeatmaps {
  return pairsView(record, pairs, formatBytes);
}

/** Where `value` lies in the range, 0…1; a range of one value is all at the top. */
export function rangePosition(value: number, range: { min: number; max: number }): number {
  return range.max > range.min ? (value - range.min) / (range.max - range.min) : 1;
}

/**
 * The cell's colour at position t: light to dark, blue for bandwidth and copy (darker = faster)
 * and orange for latency (darker = slower), so the eye finds the outlier pair either way.
 */
export function heatColour(metric: Pick<PairsMetric, 'higherIsBetter'>, t: number): string {
  const hue = metric.higherIsBetter ? 217 : 25;
  return `hsl(${hue}, 85%, ${Math.round(94 - 54 * Math.min(1, Math.max(0, t)))}%)`;
}

/** The text on a cell: white on dark cells, black on light ones, whichever has the more contrast (at least 4.5:1). */
export const heatTextColour = (metric: Pick<PairsMetric, 'higherIsBetter'>, t: number): string => textOn(heatColour(metric, t));

/** A cell's number: GB/s as numbers.ts writes them, µs like the step tables. */
export const formatPairValue = (metric: Pick<PairsMetric, 'unit'>, value: number): string =>
  metric.unit === 'GB/s' ? formatGBs(value) : formatMicroseconds(value);

/** What a cell says beside its figure: the link, NCCL's transport, the share of the link's peak. */
export function linkText(link: PairLink | undefined, measure: PairsMetric['measure']): string {
  if (!link) return '';
  const parts = [link.link ? `link ${link.link.text}${link.link.peakFrom ? ` (${link.link.peakFrom})` : ''}` : null];
  if (measure === 'copy') parts.push(link.how);
  else parts.push(link.transport ? `transport ${link.transport}` : null);
  const share = measure === 'copy' ? link.copyShare : measure === 'bandwidth' ? link.share : null;
  if (share !== null && link.link?.peakGBps)
    parts.push(`${(100 * share).toFixed(0)} % of the link's ${+link.link.peakGBps.toFixed(1)} GB/s peak`);
  return parts.filter(Boolean).join(', ');
}
