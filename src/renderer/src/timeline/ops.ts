// Which operation a slice shows, and its colour: one fixed list so that an op keeps its colour
// from run to run, and the legend reads the same everywhere.
import { stepOp } from '../../../shared/results/results-table.js';
import type { PlanAction } from '../../../shared/plan/types.js';

export { OP_COLOURS, OPS, type OpName } from '../../../shared/export/op-colours.js';
import { OP_INDEX, type OpName } from '../../../shared/export/op-colours.js';

/** The op of a step (shared with the exports, so a slice and its trace event name it alike). */
export const opOf = (action: PlanAction): OpName => stepOp(action) as OpName;

/** Colour index of each plan step, by step index. */
export function stepOpIndices(actions: readonly PlanAction[]): Uint8Array {
  return Uint8Array.from(actions, (a) => OP_INDEX.get(opOf(a))!);
}
