import { describe, expect, it } from 'vitest';
import {
  bandwidthUnitFor,
  formatBandwidth,
  formatBandwidthIn,
  formatDuration,
  GB_PER_S,
  MB_PER_S,
} from '../../../src/shared/data/units.js';

describe('bandwidth units', () => {
  it('a table of small messages reads in MB/s, one that reaches 1 GB/s in GB/s', () => {
    expect(bandwidthUnitFor([0.0048, 0.2, null])).toBe(MB_PER_S);
    expect(bandwidthUnitFor([0.0048, 1.5])).toBe(GB_PER_S);
    expect(bandwidthUnitFor([null, undefined, 0])).toBe(GB_PER_S);
    expect(bandwidthUnitFor([Number.NaN, 0.5])).toBe(MB_PER_S);
  });

  it('never prints 0.00 for a bandwidth that is not zero', () => {
    expect(formatBandwidthIn(0.0000048, MB_PER_S)).toBe('0.0048');
    expect(formatBandwidthIn(0.0048, MB_PER_S)).toBe('4.80');
    expect(formatBandwidthIn(0.0048, GB_PER_S)).toBe('0.0048');
    expect(formatBandwidthIn(0, GB_PER_S)).toBe('0.00');
    expect(formatBandwidthIn(21.346, GB_PER_S)).toBe('21.35');
  });

  it('a bandwidth alone carries the unit that fits it', () => {
    expect(formatBandwidth(0.00082)).toBe('0.82 MB/s');
    expect(formatBandwidth(0.0048)).toBe('4.80 MB/s');
    expect(formatBandwidth(21.346)).toBe('21.35 GB/s');
  });
});

describe('durations', () => {
  it('a duration reads in the largest unit that keeps it at 1 or more, to 3 significant digits', () => {
    expect(formatDuration(0)).toBe('0 ns');
    expect(formatDuration(800_000)).toBe('800 µs');
    expect(formatDuration(12_345_678)).toBe('12.3 ms');
    expect(formatDuration(1_154_000_000)).toBe('1.15 s');
  });

  it('a duration nothing measured reads as unknown', () => {
    expect(formatDuration(null)).toBe('unknown');
  });
});
