// What this machine offers the run panel: host, CPUs, which backends can run here, and the GPUs
// (so the panel can offer one nccl rank per GPU).
import { cpus, hostname } from 'node:os';
import type { MachineInfo } from '../../../shared/run/api/api.js';
import type { NativeAddon } from '../../../addon/native-api.js';
import { linksOf } from './environment.js';

/** The run panel offers up to this many cpu ranks: each is a process, more only oversubscribe. */
const MAX_CPU_RANKS = 8;

export type MachineAddon = Pick<NativeAddon, 'backends'> & Partial<Pick<NativeAddon, 'topologyAsync'>>;

export async function describeMachine(loadAddon: () => MachineAddon, fileDialogs: boolean): Promise<MachineInfo> {
  let backends: MachineInfo['backends'];
  let gpus: MachineInfo['gpus'] = [];
  let links: MachineInfo['links'] = [];
  try {
    const addon = loadAddon();
    backends = addon.backends();
    // The GPUs are listed only where nccl can use them; reading them (NVML, CUDA) runs off the JS thread.
    if (backends.nccl.available && addon.topologyAsync) {
      const t = await addon.topologyAsync();
      gpus = t.gpus.map(({ index, name, memoryBytes, busId, computeCapability }) => ({
        index,
        name,
        memoryBytes,
        busId,
        ...(computeCapability === undefined ? {} : { computeCapability }),
      }));
      links = linksOf(t);
    }
  } catch (e) {
    // Without the addon nothing can run, but the app still opens and replays records.
    const reason = (e as Error).message;
    backends ??= { cpu: { available: false, reason }, nccl: { available: false, reason } };
  }
  return {
    host: hostname(),
    cpus: cpus().length,
    backends,
    gpus,
    links,
    maxCpuRanks: MAX_CPU_RANKS,
    fileDialogs,
  };
}
