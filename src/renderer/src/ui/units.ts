// Numbers with their units, as every view shows them: one place in the renderer. What src/shared
// already writes (bytes, microseconds as the step tables print them, compute capability) comes from
// there; what only a screen needs (durations on a time axis, GB/s beside small neighbours) is here.
export {
  bandwidthUnitFor,
  formatBandwidth,
  formatBandwidthIn,
  formatBytes,
  formatDuration,
  DURATION_UNITS,
  GB_PER_S,
  MB_PER_S,
  type BandwidthUnit,
} from '../../../shared/data/units.js';
import { formatBandwidthIn, GB_PER_S } from '../../../shared/data/units.js';
export { formatComputeCapability } from '../../../shared/ops/gpu-support.js';
export { formatMicroseconds } from '../../../shared/results/results-table.js';

// In the heatmaps and the comparison, a small message's bandwidth (8 B: a few MB/s) must not read
// as 0.00 beside its neighbours as it does in nccl-tests' fixed-point columns.

/** GB/s: two decimals, or two significant digits below 0.1 (0.0048). */
export const formatGBs = (x: number): string => formatBandwidthIn(x, GB_PER_S);

/** A tick of a logarithmic axis: no more digits than the value has (0.0005, 1, 50); the SVG charts' own. */
export { formatLogTick } from '../../../shared/export/svg/svg.js';
