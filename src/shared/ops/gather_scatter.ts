import { lazySlice } from '../data/lazy.js';
import { defineCollective, gatheredSlices, rankShare, ringFactor } from './types.js';

const gather = defineCollective({
  name: 'gather',
  native: 'gather',
  summary: "The root receives a list with every rank's tensor.",
  teaching:
    "gather is all_gather with a single destination: the root ends with every rank's tensor, in rank order; the others receive nothing.",
  countMeans: 'elements of the tensor each rank sends',
  rooted: true,
  reduces: false,
  inPlace: { layout: 'send-in-recv', byDefault: false },
  listOutput: true,
  chunkedInput: false,
  ...rankShare,
  buffers: ({ count, world, rank, root }) => ({ send: count, recv: rank === root ? count * world : 0, nativeCount: count }),
  expected: (ctx) => (ctx.rank === ctx.root ? gatheredSlices(ctx, 0, ctx.count) : null),
  busFactor: ringFactor,
});

const scatter = defineCollective({
  name: 'scatter',
  native: 'scatter',
  summary: 'The root sends tensor j of its list to rank j.',
  teaching: 'scatter is the inverse of gather: the root holds a list of world tensors and rank j receives entry j.',
  countMeans: "elements of the tensor each rank receives (the root's list has world of them)",
  rooted: true,
  reduces: false,
  inPlace: { layout: 'recv-in-send', byDefault: false },
  listOutput: false,
  chunkedInput: true,
  ...rankShare,
  buffers: ({ count, world, rank, root }) => ({ send: rank === root ? count * world : 0, recv: count, nativeCount: count }),
  expected: ({ count, rank, root, input }) => lazySlice(input(root), rank * count, count),
  busFactor: ringFactor,
});

/** This file's collectives by name, spread into COLLECTIVE_DESCRIPTORS (ops/index.ts). */
export const collectives = { gather, scatter };
