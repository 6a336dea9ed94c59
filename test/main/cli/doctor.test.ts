// `clab doctor`'s report from what the addon read, for a machine this one is not (no GPU here).
import { describe, expect, it } from 'vitest';
import { doctorReport } from '../../../src/main/cli/commands/doctor';
import type { Topology } from '../../../src/addon/native-api';

const topology: Topology = {
  gpus: [
    { index: 0, name: 'NVIDIA H200', memoryBytes: 150754820096, busId: '0000:00:06.0', computeCapability: 90 },
    { index: 1, name: 'NVIDIA RTX PRO 6000', memoryBytes: 102641958912, busId: '0000:00:07.0', computeCapability: 120 },
    { index: 2, name: '', memoryBytes: 0, busId: '0000:00:08.0' },
  ],
  links: [
    {
      a: 0,
      b: 1,
      nvlinks: 18,
      via: 'NVSwitch',
      pcie: 'PHB',
      peakGBps: 450,
      p2p: { access: true, performanceRank: 0, nativeAtomics: true },
    },
    { a: 0, b: 2, nvlinks: 0, via: '', pcie: 'SYS', peakGBps: null, p2p: null },
    { a: 1, b: 2, nvlinks: 0, via: '', pcie: 'SYS', peakGBps: null, p2p: null },
  ],
  versions: { nvidiaDriver: '580.159.04', cudaRuntime: '13.0', nccl: '2.28.3' },
  problems: [],
};

describe('clab doctor', () => {
  it('prints each GPU with its memory, bus id and compute capability, and the links between them', () => {
    const lines = doctorReport({ cpu: { available: true }, nccl: { available: true, devices: 3 } }, topology);
    expect(lines).toContain('  GPU 0  NVIDIA H200  140.4 GiB  bus 0000:00:06.0  compute capability 9.0');
    expect(lines).toContain('  GPU 1  NVIDIA RTX PRO 6000  95.6 GiB  bus 0000:00:07.0  compute capability 12.0');
    expect(lines).toContain('  GPU 2  (name unknown)  0.0 GiB  bus 0000:00:08.0');
    expect(lines).toContain(
      '  GPU 0 ↔ GPU 1: 18 NVLinks through NVSwitch, peak 450 GB/s each way, PCIe PHB, CUDA peer access yes (performance rank 0, native atomics yes)',
    );
    expect(lines).toContain('versions: NVIDIA driver 580.159.04, CUDA runtime 13.0, NCCL 2.28.3');
  });

  it('says whether the addon carries the data kernels', () => {
    const withKernels = doctorReport({ cpu: { available: true }, nccl: { available: true, devices: 3, dataKernels: true } }, topology);
    expect(withKernels.find((l) => l.includes('data kernels'))).toMatch(
      /built in \(PTX .*\): nccl ranks fill and check large tensors on the GPU/,
    );
    const without = doctorReport({ cpu: { available: true }, nccl: { available: true, devices: 3, dataKernels: false } }, topology);
    expect(without.find((l) => l.includes('data kernels'))).toBe(
      '  data kernels: none (this addon was built without them): nccl ranks fill and check every tensor on the host',
    );
  });

  it('on a machine with no GPU, says nothing of GPU data kernels, and says where runs go', () => {
    const none: Topology = {
      gpus: [],
      links: [],
      versions: { cudaRuntime: '13.0' },
      problems: ['libnccl.so.2: cannot open shared object file'],
    };
    const lines = doctorReport(
      { cpu: { available: true }, nccl: { available: false, reason: 'libnccl.so.2: cannot open shared object file', dataKernels: true } },
      none,
    );
    expect(lines.some((l) => l.includes('data kernels'))).toBe(false);
    expect(lines).toContain('GPUs: none visible: runs go to the cpu backend (backend auto picks it)');
  });
});
