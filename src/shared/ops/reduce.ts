import { defineCollective, wholeTensor, reducedSlice } from './types.js';

const reduce = defineCollective({
  name: 'reduce',
  native: 'reduce',
  summary: "The reduction of all ranks' tensors lands on the root only.",
  teaching:
    'reduce is all_reduce with a single destination: only the root receives the combined tensor; ' +
    "the other ranks' output is left undefined (torch leaves their tensor as it was in practice, but do not rely on it).",
  countMeans: 'elements of the tensor every rank passes',
  rooted: true,
  reduces: true,
  inPlace: { layout: 'same', byDefault: true },
  listOutput: false,
  chunkedInput: false,
  ...wholeTensor,
  buffers: ({ count, rank, root }) => ({ send: count, recv: rank === root ? count : 0, nativeCount: count }),
  expected: (ctx) => (ctx.rank === ctx.root ? reducedSlice(ctx, 0, ctx.count) : null),
  busFactor: () => 1,
});

/** This file's collectives by name, spread into COLLECTIVE_DESCRIPTORS (ops/index.ts). */
export const collectives = { reduce };
