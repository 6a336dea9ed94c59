// The core's clock: CLOCK_MONOTONIC nanoseconds, the clock of every rank's events on this host.
export const nowNs = (): number => Number(process.hrtime.bigint());
