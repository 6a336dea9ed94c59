// Picks the backend for a run: nccl when asked for (or, with auto, when it is usable), else cpu.
import type { BackendName } from '../../shared/protocol.js';
import { loadAddon } from '../../worker/addon.js';
import type { NativeAddon } from '../../worker/native-api.js';

export type BackendRequest = 'auto' | BackendName;

export interface BackendChoice {
  backend: BackendName;
  /** Why this backend, when it is not simply the one asked for. */
  note: string | null;
}

export class BackendUnavailableError extends Error {
  readonly code = 'CLAB_BACKEND_UNAVAILABLE';
}

export function chooseBackend(request: BackendRequest, addon: Pick<NativeAddon, 'backends'> = loadAddon()): BackendChoice {
  const available = addon.backends();
  if (request === 'auto') {
    if (available.nccl.available) return { backend: 'nccl', note: null };
    return { backend: 'cpu', note: `auto chose cpu: nccl is unavailable (${available.nccl.reason ?? 'no reason given'})` };
  }
  const b = available[request];
  if (!b.available) throw new BackendUnavailableError(`the ${request} backend is unavailable: ${b.reason ?? 'no reason given'}`);
  return { backend: request, note: null };
}
