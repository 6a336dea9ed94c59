// The rank's early CUDA context: a rank forked for nccl is named its GPU (CLAB_EARLY_DEVICE) and
// gets native/preload/early_context.cc's library (clab_early_context.so, beside the addon) in
// LD_PRELOAD, which begins that GPU's context as the process starts, before Node boots: on
// 2 × H200 the rank's context was ready some 95 ms sooner and the sweep ended ~0.1 s sooner (5 runs
// each, taking turns, 2026-11-28, bench/gpu/README.md). The library takes itself out of LD_PRELOAD
// at once, so nothing the rank starts inherits it. The same rule for bin/early-ranks.cjs's ranks and
// the core's (src/main/core/run/workers.ts), so that the core adopts the early ones. Linux only;
// CLAB_EARLY_CONTEXT=0 turns it off. Plain CommonJS, no dependencies: it runs before anything else loads.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const LIBRARY = 'clab_early_context.so';

/** The library beside the addon at `addon` (a path to clab_native.node), or null where there is none. */
function earlyContextLibrary(addon) {
  if (!addon) return null;
  const library = join(addon, '..', LIBRARY);
  return existsSync(library) ? library : null;
}

/** `env` with `library` first in LD_PRELOAD, where the rank is named its GPU (CLAB_EARLY_DEVICE); else `env` itself. */
function withEarlyContext(env, library, platform = process.platform) {
  if (!library || platform !== 'linux' || env.CLAB_EARLY_DEVICE === undefined || env.CLAB_EARLY_CONTEXT === '0') return env;
  const had = env.LD_PRELOAD;
  return { ...env, LD_PRELOAD: had ? `${library}:${had}` : library };
}

module.exports = { earlyContextLibrary, withEarlyContext };
