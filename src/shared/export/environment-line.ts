// The one line `clab run` and `clab replay` print of where a run ran: host, backend, GPUs, and on
// nccl which NCCL library (its version, file and hash), CUDA runtime and driver.
import type { Environment } from '../run/record/record.js';
import { ncclLibraryText } from '../run/nccl/nccl-library.js';

/** "2 × NVIDIA H200", or the names one by one where the GPUs differ. */
function gpuText(gpus: Environment['gpus']): string | null {
  if (!gpus.length) return null;
  const names = gpus.map((g) => g.name || '(name unknown)');
  return names.every((n) => n === names[0]) ? `${gpus.length} × ${names[0]}` : names.join(', ');
}

export function environmentLine(e: Environment): string {
  const nccl = e.ncclLibrary ? ncclLibraryText(e.ncclLibrary) : e.versions.nccl ? `NCCL ${e.versions.nccl}` : null;
  const parts = [
    e.host,
    `${e.backend} backend`,
    gpuText(e.gpus),
    e.backend === 'nccl' ? nccl : null,
    e.versions.cudaRuntime ? `CUDA runtime ${e.versions.cudaRuntime}` : null,
    e.versions.nvidiaDriver ? `driver ${e.versions.nvidiaDriver}` : null,
  ];
  return `# environment: ${parts.filter((p) => p !== null).join(', ')}`;
}
