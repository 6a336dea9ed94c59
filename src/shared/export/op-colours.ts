// Which colour each operation gets, in the timeline, its pictures and the report: one fixed list so
// that an op keeps its colour from run to run, and the legend reads the same everywhere.
import { COLLECTIVES, OBJECT_COLLECTIVES } from '../ops/index.js';

// Every name stepOp gives (the exports name a step's op by it), including a pair's plain copy.
export const OPS = [...COLLECTIVES, ...OBJECT_COLLECTIVES, 'send/recv', 'copy', 'group', 'compute', 'barrier', 'wait', 'block'] as const;
export type OpName = (typeof OPS)[number];

/**
 * One colour per entry of OPS, in order. Chosen (by search, each moved as little as it could from
 * where its family put it) so that every two are at least 15 apart in CIEDE2000 for normal vision
 * (15.5 here) and 7.5 for protanopia, deuteranopia and tritanopia (7.7), each at least 20 from both
 * themes' canvas (test/renderer/timeline/palette.test.ts); given out by family, a hue range each: one to
 * all in blues and violets, gathers in reds, reductions in yellows and olives, all-to-all in
 * green and teal, point to point in teal and cyan, the rest in greys. Text on a colour is white or
 * black, whichever reads better (paint.ts).
 */
export const OP_COLOURS = [
  '#1f6ef9', // broadcast
  '#bcaa00', // all_reduce
  '#ef0400', // reduce
  '#e92351', // all_gather
  '#a91921', // all_gather_into_tensor
  '#8d2090', // gather
  '#8071a2', // scatter
  '#b3c579', // reduce_scatter
  '#7a6c46', // reduce_scatter_tensor
  '#aff004', // all_to_all
  '#1cb2a1', // all_to_all_single
  '#0331fe', // broadcast_object
  '#ee7360', // all_gather_object
  '#b42265', // gather_object
  '#3f0693', // scatter_object
  '#06605b', // send/recv
  '#3fd9f5', // copy
  '#5b6a78', // group
  '#987970', // compute
  '#6f92a3', // barrier
  '#9d9b81', // wait
  '#d9aec9', // block
] as const;

/** Each op's place in OPS (and OP_COLOURS). */
export const OP_INDEX: ReadonlyMap<string, number> = new Map<string, number>(OPS.map((op, i) => [op, i]));

/** An op's colour by its name as stepOp gives it; grey for a name not in the list. */
export const opColour = (op: string): string => OP_COLOURS[OP_INDEX.get(op) ?? OPS.indexOf('group')];
