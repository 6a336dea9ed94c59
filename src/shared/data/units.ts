const UNITS: Record<string, number> = {
  b: 1,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
};

/** "64MiB" → 67108864; a bare number is bytes. */
export function parseBytes(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B|B)?\s*$/i.exec(text);
  if (!m) throw new Error(`not a size: ${JSON.stringify(text)}`);
  return Math.round(Number(m[1]) * UNITS[(m[2] ?? 'b').toLowerCase()]);
}

/** 67108864 → "64 MiB"; exact powers print without decimals. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Number.isInteger(v) ? v : v.toFixed(1)} ${units[i]}`;
}

/** A unit a bandwidth column or axis shows: its name and how many of it make one GB/s (10⁹ B/s). */
export interface BandwidthUnit {
  name: 'GB/s' | 'MB/s';
  perGBps: number;
}

export const GB_PER_S: BandwidthUnit = { name: 'GB/s', perGBps: 1 };
export const MB_PER_S: BandwidthUnit = { name: 'MB/s', perGBps: 1e3 };

/**
 * The unit a set of bandwidths (GB/s) reads best in: MB/s when even the largest is under 1 GB/s
 * (8 B messages: a few MB/s, not "0.00 GB/s"), else GB/s. Nulls and non-finite values are skipped.
 */
export function bandwidthUnitFor(gbps: Iterable<number | null | undefined>): BandwidthUnit {
  let largest = 0;
  for (const v of gbps) if (v !== null && v !== undefined && Number.isFinite(v)) largest = Math.max(largest, Math.abs(v));
  return largest > 0 && largest < 1 ? MB_PER_S : GB_PER_S;
}

/** A bandwidth (GB/s) in `unit`, number only: two decimals, or two significant digits where decimals would read 0.00. */
export function formatBandwidthIn(gbps: number, unit: BandwidthUnit): string {
  const v = gbps * unit.perGBps;
  return v !== 0 && Math.abs(v) < 0.1 ? v.toPrecision(2) : v.toFixed(2);
}

/** One bandwidth with the unit that fits it alone: "21.34 GB/s", "4.80 MB/s". */
export function formatBandwidth(gbps: number): string {
  const unit = bandwidthUnitFor([gbps]);
  return `${formatBandwidthIn(gbps, unit)} ${unit.name}`;
}

/** Nanoseconds per unit, the largest first. */
export const DURATION_UNITS: readonly (readonly [number, string])[] = [
  [1e9, 's'],
  [1e6, 'ms'],
  [1e3, 'µs'],
  [1, 'ns'],
];

/**
 * `1.5 ms`, `250 µs`, `12 ns`: the largest unit that keeps the number at 1 or more, 3 significant
 * digits; `unknown` for a duration nothing measured (null).
 */
export function formatDuration(ns: number | null): string {
  if (ns === null) return 'unknown';
  const abs = Math.abs(ns);
  const [scale, unit] = DURATION_UNITS.find(([s]) => abs >= s) ?? DURATION_UNITS[DURATION_UNITS.length - 1];
  const v = ns / scale;
  return `${Number(v.toPrecision(3))} ${unit}`;
}
