// β for the α-β model: how fast the link a run's ranks talk over can go at most, read from the
// run record's environment. On GPUs, the slowest link between any two of the ranks' GPUs (a ring
// through all of them is as fast as its slowest hop); on the cpu backend, the host memory copy
// rate measured when the run started.
import { linkBetween } from '../run/record/links.js';
import type { Environment } from '../run/record/record.js';

export interface LinkPeak {
  /** One direction, GB/s (10⁹ B/s). */
  gbps: number;
  /** Where the number comes from, in words: "18 NVLinks (NVSwitch) × 25 GB/s between GPU 0 and GPU 1". */
  from: string;
}

type PeakEnvironment = Pick<Environment, 'backend' | 'gpus' | 'links' | 'hostCopyGBps'>;

/** The peak between the given CUDA devices (one per rank); null where the record does not say. */
export function linkPeak(environment: PeakEnvironment, devices: number[]): LinkPeak | null {
  if (environment.backend === 'cpu') {
    const copy = environment.hostCopyGBps;
    return copy === undefined ? null : { gbps: copy, from: 'host memory copy, measured as the run started' };
  }
  let slowest: LinkPeak | null = null;
  for (let i = 0; i < devices.length; i++) {
    for (let j = i + 1; j < devices.length; j++) {
      const link = linkBetween(environment, devices[i], devices[j]);
      // A pair the record cannot rate leaves β unknown rather than taken from the others.
      if (!link || link.peakGBps === null) return null;
      if (!slowest || link.peakGBps < slowest.gbps) {
        slowest = { gbps: link.peakGBps, from: `${link.peakFrom ?? link.text} between GPU ${devices[i]} and GPU ${devices[j]}` };
      }
    }
  }
  return slowest;
}
