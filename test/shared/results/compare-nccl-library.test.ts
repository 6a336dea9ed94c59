// Two runs on different NCCL libraries: `clab compare` names both (file, version, hash) and lists
// the fields that differ; the environment line of `clab run` and `clab replay` names the library.
import { describe, expect, it } from 'vitest';
import { compareRuns, comparisonReport } from '../../../src/shared/results/compare-runs';
import { environmentLine } from '../../../src/shared/export/environment-line';
import type { Environment } from '../../../src/shared/run/record/record';
import type { NcclLibraryRecord } from '../../../src/shared/run/nccl/nccl-library';
import { allReduce, buildRecord, CPU_ENVIRONMENT } from '../export/records';

const library = (over: Partial<NcclLibraryRecord> = {}): NcclLibraryRecord => ({
  path: '/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3',
  version: '2.28.3',
  sha256: 'a'.repeat(64),
  chosenBy: 'loader',
  ...over,
});
const nccl = (lib?: NcclLibraryRecord): Environment => ({
  ...CPU_ENVIRONMENT,
  backend: 'nccl',
  gpus: [0, 1].map((index) => ({ index, name: 'NVIDIA H200', memoryBytes: 150e9, busId: `0000:00:0${6 + index}.0` })),
  versions: { node: '20.0.0', nccl: lib?.version ?? '2.28.3', cudaRuntime: '13.0', nvidiaDriver: '580.159.04' },
  ...(lib ? { ncclLibrary: lib } : {}),
});
const run = (id: string, environment: Environment) =>
  buildRecord({ world: 2, id, environment, steps: [{ label: 'all_reduce', action: allReduce(1024), timesUs: [[10], [10]] }] });

describe('comparing runs on different NCCL libraries', () => {
  it('names both libraries where the files differ', () => {
    const wheel = library({
      path: '/venv/site-packages/nvidia/nccl/lib/libnccl.so.2',
      version: '2.27.7',
      sha256: 'b'.repeat(64),
      chosenBy: 'option',
    });
    const c = compareRuns(run('a', nccl(library())), run('b', nccl(wheel)));
    expect(c.ncclLibraries).toEqual({
      a: `NCCL 2.28.3 from /usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3 (sha256 aaaaaaaaaaaa…, chosen by the loader's libnccl.so.2)`,
      b: `NCCL 2.27.7 from /venv/site-packages/nvidia/nccl/lib/libnccl.so.2 (sha256 bbbbbbbbbbbb…, chosen by --nccl)`,
    });
    const lines = comparisonReport(c);
    expect(lines).toContain('# the runs loaded different NCCL libraries:');
    expect(lines).toContain(`  ncclLibrary.sha256: ${'a'.repeat(64)} → ${'b'.repeat(64)}`);
    expect(lines).toContain('  ncclLibrary.version: 2.28.3 → 2.27.7');
  });

  it('names them where only the bytes differ: a library rebuilt in place', () => {
    const c = compareRuns(run('a', nccl(library())), run('b', nccl(library({ sha256: 'c'.repeat(64) }))));
    expect(c.ncclLibraries?.b).toContain('sha256 cccccccccccc…');
    expect(c.environment.map((e) => e.field)).toEqual(['ncclLibrary.sha256']);
  });

  it('says nothing of libraries where both runs loaded the same one, or a record keeps none', () => {
    expect(compareRuns(run('a', nccl(library())), run('b', nccl(library()))).ncclLibraries).toBeNull();
    const older = compareRuns(run('a', nccl()), run('b', nccl(library())));
    expect(older.ncclLibraries).toBeNull();
    expect(comparisonReport(older)).not.toContain('# the runs loaded different NCCL libraries:');
  });
});

describe('the environment line', () => {
  it("names an nccl run's GPUs, NCCL library (version, file, hash, how chosen), CUDA runtime and driver", () => {
    expect(environmentLine(nccl(library({ chosenBy: 'env' })))).toBe(
      '# environment: lab-1, nccl backend, 2 × NVIDIA H200, NCCL 2.28.3 from /usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3 (sha256 aaaaaaaaaaaa…, chosen by CLAB_NCCL_LIBRARY), CUDA runtime 13.0, driver 580.159.04',
    );
  });

  it('falls back to the version alone for an older record, and names no NCCL for cpu ranks', () => {
    expect(environmentLine(nccl())).toContain(', NCCL 2.28.3, CUDA runtime 13.0');
    expect(environmentLine(CPU_ENVIRONMENT)).toBe('# environment: lab-1, cpu backend');
  });
});
