// One pairs step as sender × receiver heatmaps (bandwidth, latency, plain copy), from the shared
// pairs view (src/shared/results/pairs.ts, which the CLI's matrices read too): each cell from the step that
// measured that direction, a one-way step's reverse left "not measured" rather than borrowed.
// Here: what the app adds, the colour scale and the numbers' text.
import { pairsView, type PairLink, type PairsCell, type PairsMatrix, type PairsView } from '../../../shared/results/pairs.js';
import type { RunRecord } from '../../../shared/run/record/record.js';
import { textOn } from '../ui/contrast';
import { formatBytes } from '../ui/units';
import { formatPairValue, heatColour, rangePosition } from '../../../shared/export/svg/heatmap.js';

export type PairCell = PairsCell;
export type PairsMetric = PairsMatrix;
export type PairsHeatmaps = PairsView;
export type { PairLink };

export function pairsHeatmaps(record: Pick<RunRecord, 'plan' | 'steps' | 'environment'>, pairs: number): PairsHeatmaps {
  return pairsView(record, pairs, formatBytes);
}

export { formatPairValue, heatColour, rangePosition };

/** The text on a cell: white on dark cells, black on light ones, whichever has the more contrast (at least 4.5:1). */
export const heatTextColour = (metric: Pick<PairsMetric, 'higherIsBetter'>, t: number): string => textOn(heatColour(metric, t));

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
