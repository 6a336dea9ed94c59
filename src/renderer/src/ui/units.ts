// Numbers with their units, as every view shows them: one place in the renderer. What src/shared
// already writes (bytes, microseconds as the step tables print them, compute capability) comes from
// there; what only a screen needs (durations on a time axis, GB/s beside small neighbours) is here.
export {
  bandwidthUnitFor,
  formatBandwidth,
  formatBandwidthIn,
  formatBytes,
  GB_PER_S,
  MB_PER_S,
  type BandwidthUnit,
} from '../../../shared/data/units.js';
import { formatBandwidthIn, GB_PER_S } from '../../../shared/data/units.js';
export { formatComputeCapability } from '../../../shared/ops/gpu-support.js';
export { formatMicroseconds } from '../../../shared/results/results-table.js';

/** Nanoseconds per unit, the largest first. */
export const DURATION_UNITS: readonly (readonly [number, string])[] = [
  [1e9, 's'],
  [1e6, 'ms'],
  [1e3, 'µs'],
  [1, 'ns'],
];

/** `1.5 ms`, `250 µs`, `12 ns`: the largest unit that keeps the number at 1 or more, 3 significant digits. */
export function formatDuration(ns: number): string {
  const abs = Math.abs(ns);
  const [scale, unit] = DURATION_UNITS.find(([s]) => abs >= s) ?? DURATION_UNITS[DURATION_UNITS.length - 1];
  const v = ns / scale;
  return `${Number(v.toPrecision(3))} ${unit}`;
}

// In the heatmaps and the comparison, a small message's bandwidth (8 B: a few MB/s) must not read
// as 0.00 beside its neighbours as it does in nccl-tests' fixed-point columns.

/** GB/s: two decimals, or two significant digits below 0.1 (0.0048). */
export const formatGBs = (x: number): string => formatBandwidthIn(x, GB_PER_S);

/** A tick of a logarithmic axis: no more digits than the value has (0.0005, 1, 50). */
export const formatLogTick = (x: number): string => String(Number(x.toPrecision(3)));
