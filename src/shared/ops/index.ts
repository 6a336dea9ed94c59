import { allReduce } from './all_reduce.js';
import { broadcast } from './broadcast.js';
import { reduce } from './reduce.js';
import { allGather, allGatherIntoTensor } from './all_gather.js';
import { reduceScatter, reduceScatterTensor } from './reduce_scatter.js';
import { allToAll, allToAllSingle } from './all_to_all.js';
import { gather, scatter } from './gather_scatter.js';
import type { CollectiveDescriptor } from './types.js';

export * from './types.js';
export * from './objects.js';
export * from './p2p.js';

export const COLLECTIVES = [
  'broadcast', 'all_reduce', 'reduce', 'all_gather', 'all_gather_into_tensor', 'gather', 'scatter',
  'reduce_scatter', 'reduce_scatter_tensor', 'all_to_all', 'all_to_all_single',
] as const;
export type CollectiveName = (typeof COLLECTIVES)[number];

export const COLLECTIVE_DESCRIPTORS: Record<CollectiveName, CollectiveDescriptor> = {
  broadcast,
  all_reduce: allReduce,
  reduce,
  all_gather: allGather,
  all_gather_into_tensor: allGatherIntoTensor,
  gather,
  scatter,
  reduce_scatter: reduceScatter,
  reduce_scatter_tensor: reduceScatterTensor,
  all_to_all: allToAll,
  all_to_all_single: allToAllSingle,
};
