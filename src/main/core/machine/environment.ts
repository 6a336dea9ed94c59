// What the run ran on, kept in the record so a run can be read and compared later. For nccl runs
// that includes the GPUs and the driver, CUDA and NCCL versions (read through NVML and the CUDA
// runtime without creating a CUDA context), and which NCCL library the ranks load, with its hash.
import { cpus, hostname, platform, release, totalmem } from 'node:os';
import type { BackendName } from '../../../shared/run/rank/protocol.js';
import type { Environment } from '../../../shared/run/record/record.js';
import { loadAddon } from '../../../addon/addon.js';
import type { Topology } from '../../../addon/native-api.js';
import { hostCopyGBps } from './host-copy.js';
import { describeNcclLibrary, ncclChoice } from './nccl-library.js';
import type { NcclLibraryRecord } from '../../../shared/run/nccl/nccl-library.js';

const RELEVANT_ENV = /^(NCCL_|CUDA_|CLAB_|OMP_NUM_THREADS$)/;

/** Off the JS thread: the first CUDA call of a process takes a while, and the core must keep relaying. */
async function readTopology(): Promise<Topology | null> {
  try {
    return await loadAddon().topologyAsync();
  } catch {
    return null; // the record is still written; the GPUs just go unnamed
  }
}

/** What joins each pair of GPUs, as the record and the run panel keep it (CUDA's peer attributes left out). */
export function linksOf(t: Topology): NonNullable<Environment['links']> {
  return t.links.map(({ a, b, nvlinks, via, pcie, peakGBps }) => ({ a, b, nvlinks, via, pcie, peakGBps: peakGBps ?? null }));
}

export async function collectEnvironment(
  backend: BackendName,
  backendNote: string | null,
  topology: () => Promise<Topology | null> = readTopology,
  /** The ranks' environment (clab's, with the scenario's NCCL settings over it). */
  rankEnv: NodeJS.ProcessEnv = process.env,
  /** The NCCL the ranks load (nccl runs): by default the one their CLAB_NCCL_LIBRARY names, else the loader's. */
  ncclLibrary: () => Promise<NcclLibraryRecord | null> = () => describeNcclLibrary(ncclChoice(undefined, rankEnv)),
): Promise<Environment> {
  const cpu = cpus();
  const [gpu, nccl] = backend === 'nccl' ? await Promise.all([topology(), ncclLibrary()]) : [null, null];
  // This process's own NCCL (topology's) may not be the ranks': theirs is the one they report.
  const ranksNccl: Record<string, string> = nccl?.version ? { nccl: nccl.version, ncclLibrary: nccl.path } : {};
  return {
    host: hostname(),
    platform: `${platform()} ${release()}`,
    cpus: cpu.length,
    cpuModel: cpu[0]?.model ?? 'unknown',
    memoryBytes: totalmem(),
    node: process.version,
    backend,
    backendNote,
    gpus: gpu
      ? gpu.gpus.map(({ index, name, memoryBytes, busId, computeCapability, pcieGen, pcieWidth, nvlinkGbpsPerLink }) => ({
          index,
          name,
          memoryBytes,
          busId,
          computeCapability,
          pcieGen,
          pcieWidth,
          nvlinkGbpsPerLink,
        }))
      : [],
    ...(backend === 'cpu' ? { hostCopyGBps: hostCopyGBps() } : {}),
    ...(gpu ? { links: linksOf(gpu) } : {}),
    versions: { node: process.versions.node, v8: process.versions.v8, napi: process.versions.napi ?? '', ...gpu?.versions, ...ranksNccl },
    env: Object.fromEntries(Object.entries(rankEnv).filter(([k, val]) => RELEVANT_ENV.test(k) && val !== undefined)) as Record<
      string,
      string
    >,
    ...(nccl ? { ncclLibrary: nccl } : {}),
  };
}
