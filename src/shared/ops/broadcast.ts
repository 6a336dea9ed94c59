import { defineCollective, wholeTensor } from './types.js';

const broadcast = defineCollective({
  name: 'broadcast',
  native: 'broadcast',
  summary: "The root's tensor is copied to every rank.",
  teaching:
    "broadcast sends the root rank's tensor to all ranks; whatever the others held is overwritten. " +
    'Each byte crosses each link once, so busbw equals algbw.',
  countMeans: 'elements of the tensor every rank passes',
  rooted: true,
  reduces: false,
  inPlace: { layout: 'same', byDefault: true },
  listOutput: false,
  chunkedInput: false,
  ...wholeTensor,
  buffers: ({ count }) => ({ send: count, recv: count, nativeCount: count }),
  expected: ({ root, input }) => input(root),
  busFactor: () => 1,
});

/** This file's collectives by name, spread into COLLECTIVE_DESCRIPTORS (ops/index.ts). */
export const collectives = { broadcast };
