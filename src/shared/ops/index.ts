import { collectives as allReduceOps } from './all_reduce.js';
import { collectives as broadcastOps } from './broadcast.js';
import { collectives as reduceOps } from './reduce.js';
import { collectives as allGatherOps } from './all_gather.js';
import { collectives as gatherScatterOps } from './gather_scatter.js';
import { collectives as reduceScatterOps } from './reduce_scatter.js';
import { collectives as allToAllOps } from './all_to_all.js';
import type { CollectiveDescriptor } from './types.js';

export * from './types.js';
export * from './objects.js';
export * from './p2p.js';

/** Every tensor collective, by name, in the order tables and completion list them. */
export const COLLECTIVE_DESCRIPTORS = {
  ...broadcastOps,
  ...allReduceOps,
  ...reduceOps,
  ...allGatherOps,
  ...gatherScatterOps,
  ...reduceScatterOps,
  ...allToAllOps,
} satisfies Record<string, CollectiveDescriptor>;
export type CollectiveName = keyof typeof COLLECTIVE_DESCRIPTORS;
export const COLLECTIVES = Object.keys(COLLECTIVE_DESCRIPTORS) as [CollectiveName, ...CollectiveName[]];

type Descriptor = (typeof COLLECTIVE_DESCRIPTORS)[CollectiveName];
/** The native op of a collective, e.g. 'all_gather' for all_gather_into_tensor. */
export type NativeCollective = Descriptor['native'];
const descriptors: readonly Descriptor[] = Object.values(COLLECTIVE_DESCRIPTORS);
/** The native collective ops, each once. */
export const NATIVE_COLLECTIVES = [...new Set(descriptors.map((d) => d.native))];
/** The native ops that reduce (read `redop`). */
export const REDUCING_NATIVE_OPS: ReadonlySet<string> = new Set(descriptors.filter((d) => d.reduces).map((d) => d.native));
