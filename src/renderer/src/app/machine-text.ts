// The header's words for what this machine has.
import type { MachineInfo } from '../../../shared/run/api/api.js';
import { formatComputeCapability } from '../ui/units';

/** "2 × NVIDIA H200 (140 GiB, compute 9.0), NV18": what nccl ranks would run on; the title lists each GPU. */
export function gpuSummary(machine: MachineInfo): string {
  const { gpus } = machine;
  if (!gpus.length) return machine.backends.nccl.available ? 'no GPU' : 'no GPU for nccl';
  const names = [...new Set(gpus.map((g) => g.name || 'GPU'))];
  const first = gpus[0];
  const cc = first.computeCapability === undefined ? '' : `, compute ${formatComputeCapability(first.computeCapability)}`;
  const what =
    names.length === 1
      ? `${gpus.length} × ${names[0]} (${(first.memoryBytes / 2 ** 30).toFixed(0)} GiB${cc})`
      : `${gpus.length} GPUs (${names.join(', ')})`;
  const kinds = [...new Set((machine.links ?? []).map((l) => (l.nvlinks > 0 ? `NV${l.nvlinks}` : l.pcie || '?')))];
  return kinds.length ? `${what}, ${kinds.join('/')}` : what;
}

/** The header's tooltip: each GPU, or why nccl cannot run here. */
export function machineTitle(machine: MachineInfo): string | undefined {
  if (machine.gpus.length) return machine.gpus.map((g) => `GPU ${g.index}: ${g.name} at ${g.busId}`).join('\n');
  return machine.backends.nccl.available ? undefined : `nccl: ${machine.backends.nccl.reason ?? 'unavailable'}`;
}
