// The committed PTX of the data kernels (native/data/data_kernels.ptx, embedded in the addon) is made
// from the sources as they are: a change to data_kernels.cu or data_program.h without
// `node scripts/build-ptx.mjs` would ship kernels that no longer match the host's semantics.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs helper of the build scripts, without types
import { dataKernelSourcesHash, PTX_FILE } from '../../scripts/ptx-sources.mjs';
import { addon } from './ranks';

describe("the data kernels' PTX", () => {
  it('was made from the current data_kernels.cu and data_program.h (else: node scripts/build-ptx.mjs)', () => {
    const header = readFileSync(PTX_FILE as string, 'utf8')
      .split('\n')
      .slice(0, 3)
      .join('\n');
    expect(header).toContain(`sources sha256 ${(dataKernelSourcesHash as () => string)()}`);
  });

  it("has the kernels (float32's own and every other type's), for compute capability 7.5 and later, and is in the addon", () => {
    const ptx = readFileSync(PTX_FILE as string, 'utf8');
    expect(ptx).toMatch(/\.target sm_75/);
    // nvcc 13 writes ISA 9.0, which drivers before CUDA 13 refuse; build-ptx.mjs declares 8.0 (CUDA 12.0).
    expect(ptx).toMatch(/^\.version 8\.0$/m);
    expect(ptx).toMatch(/\.entry clab_fill\(/);
    expect(ptx).toMatch(/\.entry clab_check\(/);
    // data_device.cc loads all of them; a PTX without one leaves the rank on the host path.
    expect(ptx).toMatch(/\.entry clab_fill_f32\(/);
    expect(ptx).toMatch(/\.entry clab_check_f32\(/);
    expect(ptx).toMatch(/\.entry clab_globaltimer\(/);
    expect(addon.backends().nccl.dataKernels).toBe(true);
  });
});
