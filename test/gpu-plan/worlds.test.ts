// test/gpu/worlds.cjs: the GPU tests run the shipped scenarios at every world from 1 to the GPU
// count, and on a second NCCL when one is named (--nccl PATH or CLAB_NCCL_SECOND).
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { gpuWorlds, ncclLibraries, scenarioRuns } = require('../gpu/worlds.cjs') as {
  gpuWorlds: (gpus: number) => number[];
  ncclLibraries: (argv: string[], env: Record<string, string | undefined>) => (string | null)[];
  scenarioRuns: (gpus: number, libraries: (string | null)[]) => { ranks: number; nccl: string | null }[];
};

describe('the worlds the GPU tests run at', () => {
  it('are every world from 1 to the GPU count', () => {
    expect(gpuWorlds(1)).toEqual([1]);
    expect(gpuWorlds(4)).toEqual([1, 2, 3, 4]);
    expect(gpuWorlds(8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('are none without a GPU', () => {
    expect(gpuWorlds(0)).toEqual([]);
    expect(gpuWorlds(-1)).toEqual([]);
  });
});

describe('the NCCL libraries the GPU tests run against', () => {
  it('are the default one alone unless a second is named', () => {
    expect(ncclLibraries(['--only', 'x'], {})).toEqual([null]);
  });

  it('add the one --nccl names, over CLAB_NCCL_SECOND', () => {
    expect(ncclLibraries(['--nccl', '/a/libnccl.so.2'], { CLAB_NCCL_SECOND: '/b/libnccl.so.2' })).toEqual([null, '/a/libnccl.so.2']);
    expect(ncclLibraries([], { CLAB_NCCL_SECOND: '/b/libnccl.so.2' })).toEqual([null, '/b/libnccl.so.2']);
    expect(ncclLibraries([], { CLAB_NCCL_SECOND: '' })).toEqual([null]);
  });

  it('give each shipped scenario a run per library and world, the default library first', () => {
    expect(scenarioRuns(3, [null, '/w/libnccl.so.2'])).toEqual([
      { ranks: 1, nccl: null },
      { ranks: 2, nccl: null },
      { ranks: 3, nccl: null },
      { ranks: 1, nccl: '/w/libnccl.so.2' },
      { ranks: 2, nccl: '/w/libnccl.so.2' },
      { ranks: 3, nccl: '/w/libnccl.so.2' },
    ]);
  });
});
