// The core's clock: CLOCK_MONOTONIC nanoseconds, the clock of every rank's events on this host.
export const nowNs = (): number => Number(process.hrtime.bigint());

/** When this process started, on nowNs's clock. */
export const processStartNs = (): number => nowNs() - performance.now() * 1e6;
