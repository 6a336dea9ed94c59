// The GPUs a run's forked ranks see: bin/early-ranks.cjs's choice for the ranks it starts before the
// CLI's bundle loads, and the core's (src/main/core/run/visible-devices.ts, which bundles this file).
// CUDA's first call in a process (cuInit, then the context) brings up every GPU the process sees: on
// 4 × H200, two ranks' contexts took 1.07–1.09 s with all four visible and 0.57–0.60 s with the two
// they use (3 runs each, 2026-11-28). So where the machine shows more GPUs than the run reaches, its
// ranks get CUDA_VISIBLE_DEVICES keeping the first ones, up to the highest device the run uses: a
// prefix of what CUDA would have seen, so every device keeps its index and every GPU the run uses (a
// copy engine's peer too) stays in sight. Plain CommonJS, no dependencies: it runs before anything
// else loads.
'use strict';
const { readdirSync } = require('node:fs');

/**
 * How many GPUs the NVIDIA driver lists (a folder each), without loading CUDA; else its device
 * files (/dev/nvidia0 …: a VM or container may show those alone); 0 where there are neither.
 */
function driverGpuCount() {
  const count = (dir, name) => {
    try {
      return readdirSync(dir).filter((f) => name.test(f)).length;
    } catch {
      return 0;
    }
  };
  return count('/proc/driver/nvidia/gpus', /./) || count('/dev', /^nvidia\d+$/);
}

/**
 * CUDA_VISIBLE_DEVICES for ranks on `devices` (CUDA indices) under `env`, on a machine whose driver
 * lists `gpus`: the first entries of what CUDA would see (the variable's list, else every GPU), up
 * to the highest device; null where that hides nothing.
 */
function narrowedVisibleDevices(env, devices, gpus) {
  if (!devices.length) return null;
  const reach = Math.max(...devices) + 1;
  const set = env.CUDA_VISIBLE_DEVICES;
  const seen = set === undefined ? Array.from({ length: gpus }, (_, i) => String(i)) : set.split(',').map((e) => e.trim());
  if (set !== undefined && set.trim() === '') return null;
  return seen.length > reach ? seen.slice(0, reach).join(',') : null;
}

module.exports = { driverGpuCount, narrowedVisibleDevices };
