// Picks the backend for a run: nccl when asked for (or, with auto, when it is usable and there are
// enough GPUs for the world: one rank per GPU), else cpu.
import type { Plan } from '../../../shared/plan/types.js';
import type { BackendName } from '../../../shared/run/rank/protocol.js';
import { loadAddon } from '../../../addon/addon.js';
import type { BackendAvailability, NativeAddon } from '../../../addon/native-api.js';

export type BackendRequest = 'auto' | BackendName;

export interface BackendChoice {
  backend: BackendName;
  /** Why this backend, when it is not simply the one asked for. */
  note: string | null;
}

export class BackendUnavailableError extends Error {
  readonly code = 'CLAB_BACKEND_UNAVAILABLE';
}

/** Why the visible GPUs cannot hold the plan's ranks (one GPU each), or null when they can. */
export function gpuShortfall(nccl: BackendAvailability, plan: Pick<Plan, 'world' | 'devices'>): string | null {
  const visible = nccl.devices ?? 0;
  const devices = plan.devices ?? Array.from({ length: plan.world }, (_, r) => r);
  const missing = devices.filter((d) => d >= visible);
  if (missing.length) {
    const what = plan.devices ? `the scenario puts ranks on GPU ${missing.join(', ')}` : `${plan.world} ranks need ${plan.world} GPUs`;
    return `${what}, but ${visible} GPU${visible === 1 ? ' is' : 's are'} visible`;
  }
  const twice = devices.find((d, i) => devices.indexOf(d) !== i);
  if (twice !== undefined) return `GPU ${twice} is given to two ranks (NCCL runs one rank per GPU)`;
  return null;
}

export function chooseBackend(
  request: BackendRequest,
  addon: Pick<NativeAddon, 'backends'> = loadAddon(),
  plan?: Pick<Plan, 'world' | 'devices'>,
  /** The NCCL the run's ranks load (--nccl): nccl is usable when that one loads, whatever this process loaded. */
  ncclLibrary?: string,
): BackendChoice {
  const available = addon.backends(ncclLibrary ? { ncclLibrary } : undefined);
  const nccl = available.nccl;
  const whyNotNccl = !nccl.available ? (nccl.reason ?? 'no reason given') : plan ? gpuShortfall(nccl, plan) : null;
  if (request === 'auto') {
    if (whyNotNccl === null) return { backend: 'nccl', note: null };
    return { backend: 'cpu', note: `auto chose cpu: nccl is unavailable (${whyNotNccl})` };
  }
  if (request === 'nccl') {
    if (whyNotNccl !== null) throw new BackendUnavailableError(`the nccl backend is unavailable: ${whyNotNccl}`);
    return { backend: 'nccl', note: null };
  }
  const b = available[request];
  if (!b.available) throw new BackendUnavailableError(`the ${request} backend is unavailable: ${b.reason ?? 'no reason given'}`);
  return { backend: request, note: null };
}
