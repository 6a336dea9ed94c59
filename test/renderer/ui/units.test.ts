import { describe, expect, it } from 'vitest';
import { formatGBs, formatLogTick } from '../../../src/renderer/src/ui/units.js';

describe('numbers in the heatmaps, comparison and log axis', () => {
  it('keep two significant digits of a bandwidth below 0.1 GB/s', () => {
    expect(formatGBs(0.004848)).toBe('0.0048');
    expect(formatGBs(0.0301)).toBe('0.030');
    expect(formatGBs(3.876)).toBe('3.88');
    expect(formatGBs(0)).toBe('0.00');
  });

  it('print log-axis ticks without trailing zeros', () => {
    expect(formatLogTick(0.0005)).toBe('0.0005');
    expect(formatLogTick(1)).toBe('1');
    expect(formatLogTick(0.05000000000000001)).toBe('0.05');
  });
});
