// Which operation a slice shows, and its colour: one fixed list so that an op keeps its colour
// from run to run, and the legend reads the same everywhere.
import { COLLECTIVES, OBJECT_COLLECTIVES } from '../../../shared/ops/index.js';
import { stepOp } from '../../../shared/results/results-table.js';
import type { PlanAction } from '../../../shared/plan/types.js';

// Every name stepOp gives (the exports name a step's op by it), including a pair's plain copy.
export const OPS = [...COLLECTIVES, ...OBJECT_COLLECTIVES, 'send/recv', 'copy', 'group', 'compute', 'barrier', 'wait', 'block'] as const;
export type OpName = (typeof OPS)[number];

const OP_INDEX = new Map<string, number>(OPS.map((op, i) => [op, i]));

/**
 * One colour per entry of OPS, in order. Chosen (by search) so that every two are at least 7.9
 * apart in CIEDE2000 for normal vision and for protanopia, deuteranopia and tritanopia
 * (test/renderer/timeline/palette.test.ts); then given out by family, a hue range each: one to
 * all in blues and violets, gathers in reds, reductions in yellows and olives, all-to-all in
 * green and teal, point to point in teal and cyan, the rest in greys. Text on a colour is white or
 * black, whichever reads better (paint.ts).
 */
export const OP_COLOURS = [
  '#146df7', // broadcast
  '#bcaa00', // all_reduce
  '#f30006', // reduce
  '#e22a4c', // all_gather
  '#b72525', // all_gather_into_tensor
  '#931e8d', // gather
  '#8071a2', // scatter
  '#b2c56a', // reduce_scatter
  '#7a6c47', // reduce_scatter_tensor
  '#a7df00', // all_to_all
  '#18b3a2', // all_to_all_single
  '#1c32fb', // broadcast_object
  '#f26556', // all_gather_object
  '#b62d69', // gather_object
  '#8808c8', // scatter_object
  '#086058', // send/recv
  '#3fd8f4', // copy
  '#516d81', // group
  '#987970', // compute
  '#6e92a4', // barrier
  '#9b9877', // wait
  '#daaeca', // block
] as const;

/** The op of a step (shared with the exports, so a slice and its trace event name it alike). */
export const opOf = (action: PlanAction): OpName => stepOp(action) as OpName;

/** Colour index of each plan step, by step index. */
export function stepOpIndices(actions: readonly PlanAction[]): Uint8Array {
  return Uint8Array.from(actions, (a) => OP_INDEX.get(opOf(a))!);
}
