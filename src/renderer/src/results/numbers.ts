// Numbers in the heatmaps and the comparison, where a small message's bandwidth (8 B: a few MB/s)
// must not read as 0.00 beside its neighbours as it does in nccl-tests' fixed-point columns.

/** GB/s: two decimals, or two significant digits below 0.1 (0.0048). */
export const formatGBs = (x: number): string => (x !== 0 && Math.abs(x) < 0.1 ? x.toPrecision(2) : x.toFixed(2));

/** A tick of a logarithmic axis: no more digits than the value has (0.0005, 1, 50). */
export const formatLogTick = (x: number): string => String(Number(x.toPrecision(3)));
