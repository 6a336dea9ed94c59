// One descriptor per tensor collective (the nccl-tests `testColl` idea): how buffer sizes
// relate, the value every output element must have, the bytes behind algbw, the busbw factor,
// and the text a learner reads. Adding a collective means adding one descriptor to a file of
// this folder (and its `collectives`); one on a new native op also needs that op's row in
// native/common/op.h and its case in each backend (nccl_ops.cc, cpu_collectives.cc). The native ops,
// their fields and the list of reducing ones (ops/index.ts, addon/native-api.ts) derive from these.
import { lazyConcat, lazySlice, type Lazy } from '../data/lazy.js';

/** How an in-place call aliases the two buffers. */
export type InPlaceLayout =
  | 'same' // send and recv are one buffer
  | 'send-in-recv' // send is this rank's slice of recv (all_gather, gather)
  | 'recv-in-send'; // recv is this rank's slice of send (reduce_scatter, scatter)

export interface Shape {
  /** The step's `count` (elements of the tensor the user passes, see `countMeans`). */
  count: number;
  world: number;
  rank: number;
  root: number;
}

export interface ExpectedContext extends Shape {
  /** Rank p's whole send buffer as stored (lazy.ts: read a window at a time). */
  input(rank: number): Lazy;
  /** The element-wise reduction over ranks of equally long inputs, as the backends compute it. */
  reduce(parts: Lazy[]): Lazy;
}

export interface CollectiveDescriptor {
  name: string;
  /** The native op that runs it: a row of CLAB_NATIVE_OPS in native/common/op.h. */
  native: string;
  /** One line for tables and completion. */
  summary: string;
  /** What a learner should understand; shown by `clab explain <op>` and in the editor's completion and hover docs (ops/explain.ts). */
  teaching: string;
  /** What `count` means for this operation; shown beside `teaching`. */
  countMeans: string;
  /** The native op reads `root`. */
  rooted: boolean;
  /** The native op reads `redop`. */
  reduces: boolean;
  inPlace: { layout: InPlaceLayout; byDefault: boolean } | null;
  /** Show the output as a list of `world` tensors (torch's list variants). */
  listOutput: boolean;
  /**
   * The input is world chunks, chunk j for rank j (a list of tensors, or one tensor split into
   * world parts), so explicit values may be written as chunks.
   */
  chunkedInput: boolean;
  /** Why `count` cannot be used with `world` ranks, or null. */
  countError(count: number, world: number): string | null;
  /** Element counts of this rank's buffers (0 = unused) and the per-call count the backend gets. */
  buffers(shape: Shape): { send: number; recv: number; nativeCount: number };
  /** What recv must hold after the call, or null where this rank gets no output. */
  expected(ctx: ExpectedContext): Lazy | null;
  /** Bytes for algbw, as nccl-tests counts them. */
  algBytes(count: number, elementBytes: number, world: number): number;
  /** busbw = algbw × this (nccl-tests' …GetBw). */
  busFactor(world: number): number;
  /** The `count` a sweep uses to reach `bytes` of algBytes. */
  countForBytes(bytes: number, elementBytes: number, world: number): number;
}

/** What of a descriptor the addon's NativeOp derives from, kept as literal types. */
export type NativeShape<N extends string, R extends boolean, X extends boolean> = { native: N; rooted: R; reduces: X };

/** A descriptor whose native op, `rooted` and `reduces` keep their literal types (see NativeShape). */
export const defineCollective = <const N extends string, const R extends boolean, const X extends boolean>(
  descriptor: CollectiveDescriptor & NativeShape<N, R, X>,
): CollectiveDescriptor & NativeShape<N, R, X> => descriptor;

export const ringFactor = (world: number) => (world > 1 ? (world - 1) / world : 0);
export const allReduceFactor = (world: number) => (world > 1 ? (2 * (world - 1)) / world : 0);

const divisibleBy =
  (what: string) =>
  (count: number, world: number): string | null =>
    count % world === 0 ? null : `count ${count} is not divisible by the world size ${world}: ${what}`;

/** What ties `count` to the bytes of algbw and a sweep's sizes, as nccl-tests counts them. */
export type Sizing = Pick<CollectiveDescriptor, 'countError' | 'algBytes' | 'countForBytes'>;

/** `count` is the whole tensor every rank passes, counted once (all_reduce, broadcast, reduce). */
export const wholeTensor: Sizing = {
  countError: () => null,
  algBytes: (count, b) => count * b,
  countForBytes: (bytes, b) => Math.max(1, Math.floor(bytes / b)),
};

/** `count` is each rank's share of a world × count whole (the gathers, scatters and list forms). */
export const rankShare: Sizing = {
  countError: () => null,
  algBytes: (count, b, world) => count * world * b,
  countForBytes: (bytes, b, world) => Math.max(1, Math.floor(bytes / b / world)),
};

/** `count` is one flat tensor split into world equal chunks, so it must divide by world (`why`: what splits it). */
export const splitTensor = (why: string): Sizing => ({
  countError: divisibleBy(why),
  algBytes: (count, b) => count * b,
  countForBytes: (bytes, b, world) => Math.max(1, Math.floor(bytes / b / world)) * world,
});

const ranksOf = (world: number) => Array.from({ length: world }, (_, p) => p);

/** Slice [offset, offset + count) of every rank's input, reduced across ranks. */
export const reducedSlice = (ctx: ExpectedContext, offset: number, count: number): Lazy =>
  ctx.reduce(ranksOf(ctx.world).map((p) => lazySlice(ctx.input(p), offset, count)));

/** Slice [offset, offset + count) of every rank's input, one after the other in rank order. */
export const gatheredSlices = (ctx: ExpectedContext, offset: number, count: number): Lazy => {
  const parts = ranksOf(ctx.world).map((p) => lazySlice(ctx.input(p), offset, count));
  return lazyConcat(parts[0].dtype, parts);
};
