import { describe, expect, it } from 'vitest';
import { gpuSummary, machineTitle } from '../../../src/renderer/src/app/machine-text.js';
import type { MachineInfo } from '../../../src/shared/run/api/api.js';

const base: MachineInfo = {
  host: 'h',
  cpus: 16,
  backends: { cpu: { available: true }, nccl: { available: true } },
  gpus: [],
  maxCpuRanks: 8,
  fileDialogs: false,
};
const gpu = (index: number, name = 'NVIDIA H200') => ({
  index,
  name,
  memoryBytes: 150754820096,
  busId: `0000:00:0${6 + index}.0`,
  computeCapability: 90,
});

describe('the header says what the machine has', () => {
  it('names the GPUs, their memory and capability, and the links between them', () => {
    expect(
      gpuSummary({ ...base, gpus: [gpu(0), gpu(1)], links: [{ a: 0, b: 1, nvlinks: 18, via: 'direct', pcie: 'SYS', peakGBps: 450 }] }),
    ).toBe('2 × NVIDIA H200 (140 GiB, compute 9.0), NV18');
    expect(
      gpuSummary({
        ...base,
        gpus: [gpu(0), gpu(1, 'NVIDIA H100')],
        links: [{ a: 0, b: 1, nvlinks: 0, via: '', pcie: 'PXB', peakGBps: null }],
      }),
    ).toBe('2 GPUs (NVIDIA H200, NVIDIA H100), PXB');
  });

  it('says why there is no GPU for nccl', () => {
    expect(
      gpuSummary({ ...base, backends: { cpu: { available: true }, nccl: { available: false, reason: 'libnccl.so.2: not found' } } }),
    ).toBe('no GPU for nccl');
    expect(
      machineTitle({ ...base, backends: { cpu: { available: true }, nccl: { available: false, reason: 'libnccl.so.2: not found' } } }),
    ).toBe('nccl: libnccl.so.2: not found');
  });
});
