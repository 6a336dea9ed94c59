import { describe, expect, it } from 'vitest';
import { linkBetween, pciePeakGBps } from '../../../../src/shared/run/record/links.js';

const gpu = (index: number, extra: object = {}) => ({ index, name: 'GPU', memoryBytes: 1, busId: `0000:0${index}:00.0`, ...extra });

describe('links', () => {
  it('reads NVLinks and their peak from the record, either way round', () => {
    const env = { gpus: [gpu(0), gpu(1)], links: [{ a: 0, b: 1, nvlinks: 18, via: 'direct', pcie: 'SYS', peakGBps: 450 }] };
    for (const [a, b] of [
      [0, 1],
      [1, 0],
    ]) {
      expect(linkBetween(env, a, b)).toEqual({ text: 'NV18', nvlinks: 18, pcie: 'SYS', peakGBps: 450, peakFrom: '18 NVLinks × 25 GB/s' });
    }
    expect(linkBetween(env, 0, 0)).toBeNull();
    expect(linkBetween(env, 0, 2)).toBeNull();
    expect(linkBetween({ gpus: [] }, 0, 1)).toBeNull();
  });

  it("takes the slower GPU's PCIe link where there is no NVLink", () => {
    const env = {
      gpus: [gpu(0, { pcieGen: 5, pcieWidth: 16 }), gpu(1, { pcieGen: 4, pcieWidth: 16 })],
      links: [{ a: 0, b: 1, nvlinks: 0, via: '', pcie: 'PXB', peakGBps: null }],
    };
    const l = linkBetween(env, 0, 1)!;
    expect(l.text).toBe('PXB');
    expect(l.peakGBps).toBeCloseTo(16 * 1.969, 6);
    expect(l.peakFrom).toBe('PCIe gen 4 ×16');
  });

  it('knows PCIe rates by generation and nothing it cannot know', () => {
    expect(pciePeakGBps(3, 16)).toBeCloseTo(15.76, 6);
    expect(pciePeakGBps(undefined, 16)).toBeNull();
    expect(pciePeakGBps(9, 16)).toBeNull();
  });
});
