// What the run ran on, kept in the record so a run can be read and compared later.
import { cpus, hostname, platform, release, totalmem } from 'node:os';
import type { BackendName } from '../../shared/protocol.js';
import type { Environment } from '../../shared/record.js';

const RELEVANT_ENV = /^(NCCL_|CUDA_|CLAB_|OMP_NUM_THREADS$)/;

export function collectEnvironment(backend: BackendName, backendNote: string | null): Environment {
  const cpu = cpus();
  return {
    host: hostname(),
    platform: `${platform()} ${release()}`,
    cpus: cpu.length,
    cpuModel: cpu[0]?.model ?? 'unknown',
    memoryBytes: totalmem(),
    node: process.version,
    backend,
    backendNote,
    gpus: [],
    versions: { node: process.versions.node, v8: process.versions.v8, napi: process.versions.napi ?? '' },
    env: Object.fromEntries(Object.entries(process.env).filter(([k, val]) => RELEVANT_ENV.test(k) && val !== undefined)) as Record<string, string>,
  };
}
