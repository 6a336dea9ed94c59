// How far a compare block's speed-up can be read: the median speed-up hides the repeats, and on
// cpu ranks that share two cores with other work the repeats of one block differ by ×2. The
// speed-up's range over the repeats (the base's fastest over the variant's slowest, to the base's
// slowest over its fastest) says whether the median means anything.

/** Ends of the range further apart than this (×1.25) and the speed-up is too noisy to read. */
export const READABLE_SPREAD = 1.25;

export interface SpeedupSpread {
  low: number;
  high: number;
  readable: boolean;
}

/** The speed-up's range over the repeats; null where either side has no repeat. */
export function speedupSpread(baseUs: number[], variantUs: number[]): SpeedupSpread | null {
  if (!baseUs.length || !variantUs.length) return null;
  const low = Math.min(...baseUs) / Math.max(...variantUs);
  const high = Math.max(...baseUs) / Math.min(...variantUs);
  return { low, high, readable: high / low <= READABLE_SPREAD };
}
