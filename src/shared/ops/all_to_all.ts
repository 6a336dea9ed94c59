import { defineCollective, gatheredSlices, rankShare, ringFactor, splitTensor, type CollectiveDescriptor } from './types.js';

const common = {
  native: 'all_to_all',
  rooted: false,
  reduces: false,
  chunkedInput: true,
  inPlace: null,
  busFactor: ringFactor,
} as const satisfies Partial<CollectiveDescriptor>;

const allToAll = defineCollective({
  ...common,
  name: 'all_to_all',
  summary: "Rank r sends its j-th tensor to rank j and receives rank j's r-th tensor.",
  teaching:
    'all_to_all is a transpose across ranks: input list entry j goes to rank j, and output list entry j came from rank j. ' +
    'NCCL has no all_to_all kernel; torch issues one send and one recv per peer inside a group.',
  countMeans: 'elements of each of the world tensors in the input (and output) list',
  listOutput: true,
  ...rankShare,
  buffers: ({ count, world }) => ({ send: count * world, recv: count * world, nativeCount: count }),
  expected: (ctx) => gatheredSlices(ctx, ctx.rank * ctx.count, ctx.count),
});

const allToAllSingle = defineCollective({
  ...common,
  name: 'all_to_all_single',
  summary: 'One flat tensor split into world equal chunks; chunk j goes to rank j.',
  teaching:
    'all_to_all_single is all_to_all on one flat tensor: it is split into world equal chunks, chunk j is sent to rank j, ' +
    'and the output is the chunks received, in rank order.',
  countMeans: 'elements of the input tensor (must divide by world)',
  listOutput: false,
  ...splitTensor('all_to_all_single splits the tensor into world equal chunks'),
  buffers: ({ count, world }) => ({ send: count, recv: count, nativeCount: count / world }),
  expected: (ctx) => gatheredSlices(ctx, (ctx.rank * ctx.count) / ctx.world, ctx.count / ctx.world),
});

/** This file's collectives by name, spread into COLLECTIVE_DESCRIPTORS (ops/index.ts). */
export const collectives = { all_to_all: allToAll, all_to_all_single: allToAllSingle };
