// The native side's layering (STYLE.md: one folder per concern; only the binding knows the JS
// engine). Each folder of native/ includes of ours only itself and the folders below it:
//   common   the vocabulary every backend shares: errors, dtypes, ops and their data programs,
//            the Comm interface, streams, the host GEMM, the clock
//   gpu      CUDA, NCCL, cuBLAS and NVML loaded with dlopen, and what needs only them
//   data     data made and checked where the backend computes: the kernels (PTX), host loops
//   cpu      the cpu backend: shared memory, futex waits
//   nccl     the nccl backend
//   profiler NCCL's profiler plug-in (clab_profiler.so, a library of its own): nothing of ours
//            beyond itself; the addon reads its records through profiler/profile_record.h
//   preload  the rank's early CUDA context (clab_early_context.so, a library of its own): nothing of ours
//   binding  the Node-API files: the addon's exports, and the test-only module (test_hooks.cc)
// Our includes name the folder ("nccl/nccl_comm.h"), so a file's folder is read from its path.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const NATIVE = join(__dirname, '../../native');
const MAY_INCLUDE: Record<string, string[]> = {
  common: [],
  profiler: [],
  preload: [],
  gpu: ['common', 'profiler'],
  data: ['common', 'gpu'],
  cpu: ['common', 'data'],
  nccl: ['common', 'gpu', 'data'],
  binding: ['common', 'gpu', 'data', 'cpu', 'nccl', 'profiler'],
};
const SOURCE = /\.(cc|h|cu)$/;

const top = readdirSync(NATIVE);
const folders = top.filter((f) => statSync(join(NATIVE, f)).isDirectory());
/** Every C++/CUDA source under native/, as "folder/file". */
const sources = folders.flatMap((d) =>
  readdirSync(join(NATIVE, d))
    .filter((f) => SOURCE.test(f))
    .map((f) => `${d}/${f}`),
);
const folderOf = (path: string) => path.split('/')[0];
const includeLines = (file: string) => [...readFileSync(join(NATIVE, file), 'utf8').matchAll(/^\s*#\s*include\s*([<"])([^>"]+)[>"]/gm)];
/** Our headers a file includes ("..." includes), as written. */
const ours = (file: string) =>
  includeLines(file)
    .filter((m) => m[1] === '"')
    .map((m) => m[2]);
/** Every header of ours a file reaches, through the headers it includes. */
function reached(file: string, seen = new Set<string>()): Set<string> {
  for (const h of ours(file)) {
    if (seen.has(h) || !sources.includes(h)) continue;
    seen.add(h);
    reached(h, seen);
  }
  return seen;
}

describe('the native layers', () => {
  it('has every source in a folder that has a rule', () => {
    expect(sources.filter((f) => f.startsWith('binding/')).length).toBeGreaterThanOrEqual(4);
    expect(sources).toContain('nccl/nccl_comm.cc');
    expect(top.filter((f) => SOURCE.test(f))).toEqual([]);
    expect(folders.filter((d) => !(d in MAY_INCLUDE))).toEqual([]);
  });

  it('includes our headers by their path from native/ (folder/file.h), each of which exists', () => {
    const unresolved = sources.flatMap((f) =>
      ours(f)
        .filter((h) => !sources.includes(h))
        .map((h) => `${f} → ${h}`),
    );
    expect(unresolved).toEqual([]);
  });

  it('includes napi.h in binding/ only', () => {
    const outside = sources.filter((f) => folderOf(f) !== 'binding' && includeLines(f).some((m) => m[2] === 'napi.h'));
    expect(outside).toEqual([]);
  });

  it('includes of ours only the same folder and the folders below it', () => {
    const broken = sources.flatMap((f) =>
      ours(f)
        .filter((h) => folderOf(h) !== folderOf(f) && !MAY_INCLUDE[folderOf(f)]?.includes(folderOf(h)))
        .map((h) => `${f} → ${h}`),
    );
    expect(broken).toEqual([]);
  });

  it('keeps the cpu backend free of GPU headers, even through data/', () => {
    const gpuReached = sources
      .filter((f) => folderOf(f) === 'cpu')
      .flatMap((f) => [...reached(f)].filter((h) => folderOf(h) === 'gpu' || folderOf(h) === 'nccl').map((h) => `${f} → ${h}`));
    expect(gpuReached).toEqual([]);
  });
});
