import { describe, expect, it } from 'vitest';
import { bestSample, clockDrift, gpuToHostNs } from '../../../../src/shared/run/nccl/gpu-clock';

const EPOCH = 1_764_000_000_123_456_789n; // %globaltimer: ns since the epoch, past 2^53

describe('the GPU clock calibration', () => {
  it('maps %globaltimer onto the host clock exactly, though the timer is beyond a double', () => {
    const c = { gpuNs: EPOCH, hostNs: 5_000_000_000, errorNs: 1_500 };
    expect(gpuToHostNs(c, EPOCH + 1n)).toBe(5_000_000_001);
    expect(gpuToHostNs(c, EPOCH - 250n)).toBe(4_999_999_750);
    // Converting first would lose the last digits: the difference must be taken in bigint.
    expect(Number(EPOCH + 1n) - Number(EPOCH)).not.toBe(1);
  });

  it('keeps the sample read between the closest host readings', () => {
    const s = [
      { gpuNs: EPOCH, hostNs: 100, errorNs: 9_000 },
      { gpuNs: EPOCH + 10n, hostNs: 110, errorNs: 2_000 },
      { gpuNs: EPOCH + 20n, hostNs: 120, errorNs: 4_000 },
    ];
    expect(bestSample(s)?.errorNs).toBe(2_000);
    expect(bestSample([])).toBeNull();
  });

  it('gives the drift between two calibrations in ppm, with its bound from their errors', () => {
    const a = { gpuNs: EPOCH, hostNs: 1_000_000_000, errorNs: 1_000 };
    const b = { gpuNs: EPOCH + 1_000_020_000n, hostNs: 2_000_000_000, errorNs: 1_000 }; // 20 µs more in 1 s
    const d = clockDrift(a, b)!;
    expect(d.ppm).toBeCloseTo(20, 6);
    expect(d.boundPpm).toBeCloseTo(2, 6);
    expect(clockDrift(b, a)).toBeNull();
  });
});
