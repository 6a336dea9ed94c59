// A process forked from the rank's entry with CLAB_PROBE=topology reads the GPUs' topology and
// sends it to the core, then ends (src/main/core/machine/topology-probe.ts): the core need not
// load CUDA for a run's record, whose start beside the ranks' own (a second process bringing up
// every GPU it sees) and whose teardown at the core's exit (50–90 ms on one H200) stood in the run's time.
import { loadAddon } from '../addon/addon.js';

export function runTopologyProbe(): void {
  let message: { type: 'topology'; topology: unknown } | { type: 'topology-error'; message: string };
  try {
    message = { type: 'topology', topology: loadAddon().topology() };
  } catch (e) {
    message = { type: 'topology-error', message: e instanceof Error ? e.message : String(e) };
  }
  process.send?.(message, () => process.disconnect?.());
}
