// What test/gpu/gpu-tests.cjs runs the shipped scenarios at: every world from 1 to the GPU count,
// on the default NCCL and, when one is named, on a second NCCL as well. Pure, so that the plan is
// unit-tested where there is no GPU (test/gpu-plan/worlds.test.ts).
'use strict';

/** Every world from 1 to `gpus` (nvidia-smi -L's count): one rank per GPU, so no more ranks than GPUs. */
function gpuWorlds(gpus) {
  const n = Number.isInteger(gpus) && gpus > 0 ? gpus : 0;
  return Array.from({ length: n }, (_, i) => i + 1);
}

/**
 * The NCCL libraries to run against: null (the one clab loads by default), then the second one
 * named, by `--nccl PATH` among the arguments or else CLAB_NCCL_SECOND; the same path named twice
 * is one library.
 */
function ncclLibraries(argv, env) {
  const i = argv.indexOf('--nccl');
  const named = (i !== -1 ? argv[i + 1] : undefined) || env.CLAB_NCCL_SECOND || null;
  return named ? [null, named] : [null];
}

/** Each run of a shipped scenario: every library at every world, the default library's first. */
function scenarioRuns(gpus, libraries) {
  return libraries.flatMap((nccl) => gpuWorlds(gpus).map((ranks) => ({ ranks, nccl })));
}

module.exports = { gpuWorlds, ncclLibraries, scenarioRuns };
