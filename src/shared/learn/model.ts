// The α-β (latency–bandwidth) model of a collective: a message of S bytes costs α per hop it
// waits for plus the bytes each rank must push through its link over β. It is the textbook model
// of NCCL's algorithms, and the yardstick the sweep table and the bandwidth chart set beside
// what was measured: where a measurement beats it, NCCL did something cleverer than the
// algorithm modelled; where it falls far short, something else than α and β held it back.
//
// S is the size nccl-tests reports (the descriptor's algBytes). The bytes a rank pushes through
// its link are S times nccl-tests' busbw factor for every ring-shaped algorithm, which is why
// busbw, not algbw, is the number to hold against a link's peak (nccl-tests, doc/PERFORMANCE.md):
//   ring all_reduce           2(n−1) hops, each S/n: a reduce-scatter then an all-gather
//   ring all_gather,
//   reduce_scatter            n−1 hops of S/n
//   broadcast, reduce         a pipelined chain from (to) the root: n−1 hops to fill it, then S
//   all_to_all                n−1 exchanges of S/n
//   gather, scatter           the root exchanges S/n with each of the n−1 others
//   send/recv                 one hop of S
//   tree all_reduce           reduce up and broadcast down NCCL's double binary tree: 2⌈log₂n⌉
//                             hops; each rank sends S/2 up both trees and S down the one it is
//                             inside of, 2S in all
import { COLLECTIVE_DESCRIPTORS, COLLECTIVES, p2pBusFactor, type CollectiveName } from '../ops/index.js';

/** The operations a sweep can measure: the tensor collectives, send (with its recv) and sendrecv (every rank both ways). */
export type ModelledOp = CollectiveName | 'send' | 'sendrecv';
const isP2p = (op: ModelledOp): op is 'send' | 'sendrecv' => op === 'send' || op === 'sendrecv';
export type Algorithm = 'ring' | 'tree';

export interface LinkModel {
  /** α: µs one hop costs before any byte counts (measured small-message latency). */
  latencyUs: number;
  /** β: one direction of the link at its peak, GB/s (10⁹ B/s). */
  peakGBps: number;
}

export const isModelledOp = (op: string): op is ModelledOp => op === 'send' || op === 'sendrecv' || (COLLECTIVES as string[]).includes(op);

/** nccl-tests' busbw factor, from the op's descriptor. */
export const busFactorOf = (op: ModelledOp, world: number): number =>
  isP2p(op) ? p2pBusFactor() : COLLECTIVE_DESCRIPTORS[op].busFactor(world);

/** The algorithms the model knows for an op; the first is the one tables compare with. */
export const algorithmsOf = (op: ModelledOp): Algorithm[] =>
  !isP2p(op) && COLLECTIVE_DESCRIPTORS[op].native === 'all_reduce' ? ['ring', 'tree'] : ['ring'];

const treeDepth = (world: number) => Math.ceil(Math.log2(world));

/** Hops whose latency a call waits for, one after the other. */
export function modelHops(op: ModelledOp, algorithm: Algorithm, world: number): number {
  if (world < 2) return 0;
  if (isP2p(op)) return 1; // sendrecv: each link is full duplex, both directions at once
  if (COLLECTIVE_DESCRIPTORS[op].native === 'all_reduce') return algorithm === 'tree' ? 2 * treeDepth(world) : 2 * (world - 1);
  return world - 1;
}

/** Bytes one rank pushes through its link for a call of `bytes` (nccl-tests' size). */
export function linkBytes(op: ModelledOp, algorithm: Algorithm, world: number, bytes: number): number {
  if (world < 2) return 0;
  if (algorithm === 'tree' && !isP2p(op) && COLLECTIVE_DESCRIPTORS[op].native === 'all_reduce') return 2 * bytes;
  return busFactorOf(op, world) * bytes;
}

/** Predicted µs for one call: hops × α + link bytes / β. */
export const predictTimeUs = (op: ModelledOp, algorithm: Algorithm, world: number, bytes: number, link: LinkModel): number =>
  modelHops(op, algorithm, world) * link.latencyUs + linkBytes(op, algorithm, world, bytes) / (link.peakGBps * 1e3);

/** Predicted busbw in GB/s: algbw (bytes over the predicted time) × the busbw factor; 0 where nothing crosses a link. */
export function predictBusBandwidth(op: ModelledOp, algorithm: Algorithm, world: number, bytes: number, link: LinkModel): number {
  const timeUs = predictTimeUs(op, algorithm, world, bytes, link);
  return timeUs > 0 ? (bytes / (timeUs * 1e3)) * busFactorOf(op, world) : 0;
}

/**
 * α from one measured call, as `timeUs` = hops × α + link bytes / β solves for it: the smallest
 * size of a sweep, where the bytes hardly count. Never below 0 (a call faster than β allows).
 */
export function latencyFromMeasurement(
  op: ModelledOp,
  algorithm: Algorithm,
  world: number,
  bytes: number,
  timeUs: number,
  peakGBps: number,
): number {
  const hops = modelHops(op, algorithm, world);
  if (hops === 0) return 0;
  return Math.max(0, timeUs - linkBytes(op, algorithm, world, bytes) / (peakGBps * 1e3)) / hops;
}
