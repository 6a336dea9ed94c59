// What this machine offers the run panel: host, CPUs, and which backends can run here.
import { cpus, hostname } from 'node:os';
import type { MachineInfo } from '../../shared/api.js';
import type { NativeAddon } from '../../addon/native-api.js';

/** The run panel offers up to this many cpu ranks: each is a process, more only oversubscribe. */
const MAX_CPU_RANKS = 8;

export function describeMachine(loadAddon: () => Pick<NativeAddon, 'backends'>, fileDialogs: boolean): MachineInfo {
  let backends: MachineInfo['backends'];
  try {
    backends = loadAddon().backends();
  } catch (e) {
    // Without the addon nothing can run, but the app still opens and replays records.
    const reason = (e as Error).message;
    backends = { cpu: { available: false, reason }, nccl: { available: false, reason } };
  }
  return {
    host: hostname(),
    cpus: cpus().length,
    backends,
    gpus: [],
    maxCpuRanks: MAX_CPU_RANKS,
    fileDialogs,
  };
}
