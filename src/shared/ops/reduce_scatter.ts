import {
  defineCollective,
  rankShare,
  reducedSlice,
  ringFactor,
  splitTensor,
  type CollectiveDescriptor,
  type ExpectedContext,
} from './types.js';

const expectedSlice = (chunk: number, ctx: ExpectedContext) => reducedSlice(ctx, ctx.rank * chunk, chunk);

const common = {
  native: 'reduce_scatter',
  rooted: false,
  reduces: true,
  chunkedInput: true,
  inPlace: { layout: 'recv-in-send', byDefault: false },
  busFactor: ringFactor,
} as const satisfies Partial<CollectiveDescriptor>;

const reduceScatter = defineCollective({
  ...common,
  name: 'reduce_scatter',
  summary: "Rank r receives the reduction of slice r of every rank's input list.",
  teaching:
    'reduce_scatter reduces element-wise across ranks like all_reduce, but each rank keeps only its own slice of the result. ' +
    'It is the first half of a ring all_reduce.',
  countMeans: 'elements of the output tensor (the input is a list of world tensors of count elements)',
  listOutput: false,
  ...rankShare,
  buffers: ({ count, world }) => ({ send: count * world, recv: count, nativeCount: count }),
  expected: (ctx) => expectedSlice(ctx.count, ctx),
});

const reduceScatterTensor = defineCollective({
  ...common,
  name: 'reduce_scatter_tensor',
  summary: "Rank r receives the reduction of the r-th 1/world of every rank's input tensor.",
  teaching:
    'reduce_scatter_tensor takes one flat input of count elements per rank and leaves count/world reduced elements on each rank — the form NCCL implements (ncclReduceScatter).',
  countMeans: 'elements of the input tensor (must divide by world; each rank gets count/world)',
  listOutput: false,
  ...splitTensor('reduce_scatter_tensor splits the input tensor into world equal slices'),
  buffers: ({ count, world }) => ({ send: count, recv: count / world, nativeCount: count / world }),
  expected: (ctx) => expectedSlice(ctx.count / ctx.world, ctx),
});

/** This file's collectives by name, spread into COLLECTIVE_DESCRIPTORS (ops/index.ts). */
export const collectives = { reduce_scatter: reduceScatter, reduce_scatter_tensor: reduceScatterTensor };
