// Which operation a slice shows, and its colour: one fixed list so that an op keeps its colour
// from run to run, and the legend reads the same everywhere.
import { COLLECTIVES, OBJECT_COLLECTIVES } from '../../../shared/ops/index.js';
import { stepOp } from '../../../shared/results/results-table.js';
import type { PlanAction } from '../../../shared/plan/types.js';

// Every name stepOp gives (the exports name a step's op by it), including a pair's plain copy.
export const OPS = [...COLLECTIVES, ...OBJECT_COLLECTIVES, 'send/recv', 'copy', 'group', 'compute', 'barrier', 'wait', 'block'] as const;
export type OpName = (typeof OPS)[number];

const OP_INDEX = new Map<string, number>(OPS.map((op, i) => [op, i]));

/** One colour per entry of OPS, in order: distinct neighbours, readable under white text. */
export const OP_COLOURS = [
  '#2563eb',
  '#dc2626',
  '#059669',
  '#d97706',
  '#7c3aed',
  '#0891b2',
  '#db2777',
  '#65a30d',
  '#ea580c',
  '#4f46e5',
  '#0d9488',
  '#9333ea',
  '#c026d3',
  '#b45309',
  '#be123c',
  '#0284c7',
  '#7c2d12',
  '#a16207',
  '#16a34a',
  '#57534e',
  '#94a3b8',
  '#475569',
] as const;

/** The op of a step (shared with the exports, so a slice and its trace event name it alike). */
export const opOf = (action: PlanAction): OpName => stepOp(action) as OpName;

/** Colour index of each plan step, by step index. */
export function stepOpIndices(actions: readonly PlanAction[]): Uint8Array {
  return Uint8Array.from(actions, (a) => OP_INDEX.get(opOf(a))!);
}
