// What a collective's output must hold on one rank, from the data pattern alone: the one
// computation that a rank process checks its output against and that `clab explain`'s worked
// example prints, so the example shows exactly what a run would accept.
import type { Dtype } from '../data/dtypes.js';
import { lazyPattern, lazyReduce, type Lazy } from '../data/lazy.js';
import type { DataPattern } from '../data/patterns.js';
import { reduceTensors, type Redop } from '../data/reduce.js';
import type { CollectiveDescriptor, Shape } from './types.js';

export interface CallData {
  data: DataPattern;
  dtype: Dtype;
  redop: Redop;
}

/** Rank `rank`'s whole send buffer as the pattern fills it (read a window at a time). */
export const inputOf = (desc: CollectiveDescriptor, shape: Shape, call: CallData, rank: number): Lazy =>
  lazyPattern(call.data, rank, call.dtype, desc.buffers({ ...shape, rank }).send);

/** What `shape.rank`'s output must hold after the call; null where that rank gets no output. */
export const expectedOutput = (desc: CollectiveDescriptor, shape: Shape, call: CallData): Lazy | null =>
  desc.expected({
    ...shape,
    input: (p) => inputOf(desc, shape, call, p),
    reduce: (parts) => lazyReduce(parts, (windows) => reduceTensors(call.dtype, call.redop, windows)),
  });
