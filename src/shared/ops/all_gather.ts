import { defineCollective, rankShare, gatheredSlices, ringFactor, type CollectiveDescriptor } from './types.js';

const common = {
  native: 'all_gather',
  rooted: false,
  reduces: false,
  chunkedInput: false,
  inPlace: { layout: 'send-in-recv', byDefault: false },
  ...rankShare,
  buffers: ({ count, world }) => ({ send: count, recv: count * world, nativeCount: count }),
  expected: (ctx) => gatheredSlices(ctx, 0, ctx.count),
  busFactor: ringFactor,
} as const satisfies Partial<CollectiveDescriptor>;

const allGather = defineCollective({
  ...common,
  name: 'all_gather',
  summary: "Every rank receives a list with every rank's tensor.",
  teaching:
    'all_gather collects one tensor from each rank and gives every rank the whole list, ordered by rank. ' +
    'Each rank receives (n−1)/n of the output from others: that is the busbw factor.',
  countMeans: 'elements of the tensor each rank contributes (each of the world output tensors has as many)',
  listOutput: true,
});

const allGatherIntoTensor = defineCollective({
  ...common,
  name: 'all_gather_into_tensor',
  summary: "Every rank receives one tensor: all ranks' tensors concatenated in rank order.",
  teaching:
    'all_gather_into_tensor is all_gather with one flat output of world × count elements instead of a list — the form NCCL itself implements (ncclAllGather).',
  countMeans: 'elements of the tensor each rank contributes (the output has world × count)',
  listOutput: false,
});

/** This file's collectives by name, spread into COLLECTIVE_DESCRIPTORS (ops/index.ts). */
export const collectives = { all_gather: allGather, all_gather_into_tensor: allGatherIntoTensor };
