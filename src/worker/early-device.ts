// A rank forked for nccl starts making its GPU's CUDA context (about a second on the 4-GPU
// machines measured, docs/MEASUREMENT.md) as the first thing it does, from its entry (entry.ts),
// while its bundle loads and the core sends the plan: the core names the device in CLAB_EARLY_DEVICE when it forks
// the rank. main.ts takes the promise where the plan gives the rank that device, and readies the
// device itself where it does not (or where no one named one: ranks from a launcher). Where the
// rank was forked with the lab's preloaded library (bin/early-context.cjs), that context began
// before Node booted, and this finds it made or being made.
import { loadAddon } from '../addon/addon.js';

export interface EarlyDevice {
  device: number;
  ready: Promise<void>;
}

/** The device named in `value` (a GPU index), or null where it names none. */
export function earlyDeviceIndex(value: string | undefined): number | null {
  return value !== undefined && /^\d{1,4}$/.test(value) ? Number(value) : null;
}

function start(): EarlyDevice | null {
  const device = earlyDeviceIndex(process.env.CLAB_EARLY_DEVICE);
  if (device === null) return null;
  const rank = Number(process.env.CLAB_RANK ?? 0);
  let ready: Promise<void>;
  try {
    ready = loadAddon().prepareDevice({ backend: 'nccl', device, rank: Number.isInteger(rank) ? rank : 0 });
  } catch (e) {
    ready = Promise.reject(e);
  }
  // Awaited (and its failure reported, with the rank and step) once the plan is in.
  ready.catch(() => undefined);
  return { device, ready };
}

/** What the rank's entry (entry.ts) began, for this bundle to take up: the two are bundled apart. */
const BEGUN = Symbol.for('clab.earlyDevice');

/** Begins the named GPU's CUDA context once per process, whichever bundle asks first. */
export function beginEarlyDevice(): EarlyDevice | null {
  const held = globalThis as { [BEGUN]?: EarlyDevice | null };
  if (!(BEGUN in held)) held[BEGUN] = start();
  return held[BEGUN] ?? null;
}

export const earlyDevice: EarlyDevice | null = beginEarlyDevice();
