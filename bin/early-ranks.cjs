// Ranks started before the CLI's bundle loads: for `clab run` with ranks forked on this machine,
// each rank's node and bundle load while the core loads its own bundle, reads the scenario and
// checks it, instead of after (cpu: wall over the events' span 1.355 → 1.31, medians of 4 runs
// each, taking turns, 2 cores). On nccl each is named its GPU (CLAB_EARLY_DEVICE, as the core
// would) and begins its CUDA context at once; the core's own look at the GPUs then takes some
// 0.1 s longer, and the run still ends sooner (the 280-step sweep on 2 × H200: 3.67–3.80 s start to
// exit against 3.81–3.94 s, 4 runs each taking turns, 2026-11-28). The core's first run adopts
// them where they match what it would have forked (src/main/core/run/early-ranks.ts); whatever it
// does not adopt is killed when the CLI ends, and a rank whose core goes away ends by itself. Plain
// CommonJS, no dependencies: it runs before anything else loads. CLAB_EARLY_RANKS=0 turns it off.
'use strict';
const { fork } = require('node:child_process');
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
// The GPUs the ranks see, as the core chooses them (the same file, bundled there).
const { driverGpuCount, narrowedVisibleDevices } = require('./visible-devices.cjs');
// The rank's early CUDA context (LD_PRELOAD), as the core gives it.
const { earlyContextLibrary, withEarlyContext } = require('./early-context.cjs');
const { addonCandidates } = require('./addon-path.cjs');

/** As src/main/core/run/workers.ts: libuv threads of a rank process, and the most ranks forked here. */
const RANK_THREAD_POOL = 32;
const MAX_EARLY_RANKS = 64;

// `clab run` options that take a value, and those under which the ranks are not forked here once.
const WITH_VALUE = new Set([
  '--backend',
  '--ranks',
  '--out',
  '--nccl',
  '--repeats',
  '--listen',
  '--launch',
  '--token-file',
  '--join-timeout',
]);
const NOT_FORKED_ONCE = new Set(['--listen', '--launch', '--help', '-h']);

/**
 * How many ranks `argv` (process.argv) asks `clab run` to fork here once, and on nccl (asked, or
 * auto where `gpus()` says there are GPUs enough) each one's GPU (devices; null on cpu). null where it cannot tell cheaply and for certain (another
 * command, a launcher's ranks, two NCCLs, a scenario that is not plain JSON): the core then forks as
 * usual and says what is wrong, if anything.
 */
function earlyWorld(argv, gpus = visibleGpus) {
  if (argv[2] !== 'run') return null;
  let file = null;
  let ranks = null;
  let backend = null;
  let ncclCount = 0;
  const args = argv.slice(3);
  for (let i = 0; i < args.length; i++) {
    const eq = args[i].startsWith('--') ? args[i].indexOf('=') : -1;
    const name = eq > 0 ? args[i].slice(0, eq) : args[i];
    if (NOT_FORKED_ONCE.has(name)) return null;
    if (WITH_VALUE.has(name)) {
      const value = eq > 0 ? args[i].slice(eq + 1) : args[++i];
      if (value === undefined) return null;
      if (name === '--ranks') ranks = /^\d{1,3}$/.test(value) ? Number(value) : NaN;
      if (name === '--backend') backend = value;
      if (name === '--nccl') ncclCount++;
    } else if (!name.startsWith('-')) {
      if (file !== null) return null;
      file = name;
    }
  }
  if (file === null || ncclCount > 1 || Number.isNaN(ranks)) return null;
  let scenario;
  try {
    scenario = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  const w = scenario && typeof scenario === 'object' ? scenario.world : undefined;
  if (!w || typeof w !== 'object') return null;
  const listed = Array.isArray(w.devices) && w.devices.every((d) => Number.isInteger(d) && d >= 0 && d < 1024) ? w.devices : null;
  const world = ranks ?? (Number.isInteger(w.ranks) ? w.ranks : Array.isArray(w.devices) ? w.devices.length : null);
  if (!Number.isInteger(world) || world < 1 || world > MAX_EARLY_RANKS) return null;
  // auto (the default) takes nccl where there are GPUs enough (main/core/machine/backend.ts): guessed
  // here from the driver's list; a wrong guess only has the core fork its own ranks.
  const asked = backend ?? scenario.backend ?? 'auto';
  const nccl =
    asked === 'nccl' || (asked === 'auto' && gpus() >= Math.max(world, ...(ranks === null && listed ? listed.map((d) => d + 1) : [])));
  // nccl: each rank's GPU as the core would name it (worker/early-device.ts), the scenario's list where --ranks does not override it.
  const devices = nccl ? Array.from({ length: world }, (_, r) => (ranks === null && listed ? listed[r] : undefined) ?? r) : null;
  return { world, devices };
}

/**
 * The GPUs this machine shows, without loading CUDA: a folder each in the NVIDIA driver's list,
 * narrowed by CUDA_VISIBLE_DEVICES where it lists indices (0 where it names them otherwise).
 */
function visibleGpus(env = process.env) {
  const n = driverGpuCount();
  if (n === 0) return 0;
  const v = env.CUDA_VISIBLE_DEVICES;
  if (v === undefined) return n;
  const list = v.split(',').map((e) => e.trim());
  // CUDA stops at the first entry it cannot use.
  const usable = list.findIndex((e) => !/^\d+$/.test(e) || Number(e) >= n);
  return usable < 0 ? list.length : usable;
}

/** The addon the ranks of `entry` (dist/worker.cjs) load, found as src/addon/addon.ts finds it from their bundle's folder; null where none is. */
function addonPath(env, entry) {
  return addonCandidates(join(entry, '..'), env).find((p) => existsSync(p)) ?? null;
}

/**
 * Forks the ranks `argv` asks for from `entry` (dist/worker.cjs), with the environment the core
 * would give them but for the scenario's own NCCL variables, which the core sends with `start`.
 * null where there is nothing to start early.
 */
function startEarlyRanks(argv, entry, env = process.env) {
  if (env.CLAB_EARLY_RANKS === '0' || !existsSync(entry)) return null;
  const asked = earlyWorld(argv);
  if (!asked) return null;
  const visible = asked.devices ? narrowedVisibleDevices(env, asked.devices, driverGpuCount()) : null;
  const library = asked.devices ? earlyContextLibrary(addonPath(env, entry)) : null;
  const envs = Array.from({ length: asked.world }, (_, rank) =>
    withEarlyContext(
      {
        UV_THREADPOOL_SIZE: String(RANK_THREAD_POOL),
        ...env,
        NCCL_NVLS_ENABLE: '0',
        CLAB_RANK: String(rank),
        ...(asked.devices ? { CLAB_EARLY_DEVICE: String(asked.devices[rank]) } : {}),
        ...(visible ? { CUDA_VISIBLE_DEVICES: visible } : {}),
      },
      library,
    ),
  );
  const children = [];
  try {
    for (const e of envs) children.push(fork(entry, [], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: e }));
  } catch {
    for (const c of children) c.kill('SIGKILL');
    return null;
  }
  let taken = false;
  const early = {
    entry,
    children,
    envs,
    /** The core's run took them: from now on they are its ranks. */
    adopt() {
      taken = true;
    },
    /** Kills them unless a run took them. */
    release() {
      if (taken) return;
      taken = true;
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    },
  };
  process.on('exit', () => early.release());
  return early;
}

module.exports = { earlyWorld, visibleGpus, narrowedVisibleDevices, startEarlyRanks, RANK_THREAD_POOL };
