// Maps the GPU's %globaltimer (what NCCL's profiler stamps each channel's kernel with) onto the
// host's CLOCK_MONOTONIC, the clock of every other timeline event. The addon reads %globaltimer in
// a one-thread kernel between two host readings (native/data/gpu_clock.h); that pair, the reading
// and half the readings' distance are the calibration. A mapped time is off by at most that half
// distance, plus the two clocks' drift since (both count nanoseconds from crystals of their own:
// tens of ppm, i.e. tens of µs over a second-long run, so the rank calibrates again at every step
// it joins events for, and the record keeps each calibration's bound).

/** One calibration: %globaltimer `gpuNs` was read while the host clock stood within hostNs ± errorNs. */
export interface GpuClockSample {
  gpuNs: bigint;
  hostNs: number;
  errorNs: number;
}

/** The host time (CLOCK_MONOTONIC ns) of a %globaltimer reading, by the calibration `c`. */
export function gpuToHostNs(c: GpuClockSample, gpuNs: bigint): number {
  // The difference first, in bigint: %globaltimer counts from the epoch, beyond a double's exact integers.
  return c.hostNs + Number(gpuNs - c.gpuNs);
}

/**
 * The best of several samples: the one read between the closest host readings (least error).
 * null for none.
 */
export function bestSample(samples: GpuClockSample[]): GpuClockSample | null {
  return samples.reduce<GpuClockSample | null>((best, s) => (best === null || s.errorNs < best.errorNs ? s : best), null);
}

/**
 * How far the GPU's clock ran from the host's between two calibrations, in parts per million
 * (positive: the GPU's ran faster), and the bound on that figure from the two errors.
 */
export function clockDrift(a: GpuClockSample, b: GpuClockSample): { ppm: number; boundPpm: number } | null {
  const hostSpan = b.hostNs - a.hostNs;
  if (hostSpan <= 0) return null;
  const gpuSpan = Number(b.gpuNs - a.gpuNs);
  return { ppm: ((gpuSpan - hostSpan) / hostSpan) * 1e6, boundPpm: ((a.errorNs + b.errorNs) / hostSpan) * 1e6 };
}
