import { defineCollective, wholeTensor, allReduceFactor, reducedSlice } from './types.js';

const allReduce = defineCollective({
  name: 'all_reduce',
  native: 'all_reduce',
  summary: "Every rank ends with the reduction (sum, prod, min, max, avg) of all ranks' tensors.",
  teaching:
    'all_reduce combines the same-shaped tensor from every rank element by element and gives the result to every rank. ' +
    'NCCL runs it as a reduce-scatter followed by an all-gather, so each rank sends and receives 2(n−1)/n of the buffer: that is its busbw factor.',
  countMeans: 'elements of the tensor every rank passes',
  rooted: false,
  reduces: true,
  inPlace: { layout: 'same', byDefault: true },
  listOutput: false,
  chunkedInput: false,
  ...wholeTensor,
  buffers: ({ count }) => ({ send: count, recv: count, nativeCount: count }),
  expected: (ctx) => reducedSlice(ctx, 0, ctx.count),
  busFactor: allReduceFactor,
});

/** This file's collectives by name, spread into COLLECTIVE_DESCRIPTORS (ops/index.ts). */
export const collectives = { all_reduce: allReduce };
