// Types of paired.cjs, for the core's A/B of two NCCL libraries (src/main/core/nccl-ab), which
// reads its runs with the same paired statistics as the GPU benches.
export interface MedianInterval {
  n: number;
  median: number;
  lo: number;
  hi: number;
  level: number;
  exact: boolean;
}
export function binomialCdfHalf(n: number, k: number): number;
export function medianWithInterval(values: number[], level?: number): MedianInterval;
export function verdict(
  interval: { lo: number; hi: number },
  limit: number,
  direction: 'max' | 'min',
): 'met' | 'missed' | 'unresolved' | 'n/a';
export function pairedRatios(a: number[], b: number[]): number[];
