// Every op a step can be named by (the exports' stepOp) has its own entry, colour and legend line
// in the timeline: a pair's plain copy is drawn as "copy", not as the first op of the list.
import { describe, expect, it } from 'vitest';
import { describeSlice, stepsByIndex } from '../../../src/renderer/src/timeline/describe';
import { loadTimeline } from '../../../src/renderer/src/timeline/model';
import { OP_COLOURS, OPS, opOf, stepOpIndices } from '../../../src/renderer/src/timeline/ops';
import { compilePlan } from '../../../src/shared/plan/compile';
import { scenarioSchema } from '../../../src/shared/scenario/schema';
import { event, source } from './fixtures';
import type { PlanAction } from '../../../src/shared/plan/types';

const pairs = compilePlan(scenarioSchema.parse({ version: 1, name: 'pairs', world: { ranks: 2 }, steps: [{ op: 'pairs', bytes: 1024 }] }));
const copyStep = pairs.steps.find((s) => s.action.kind === 'pair' && s.action.measure === 'copy')!;

describe('timeline ops', () => {
  it('a pair\'s plain copy is "copy", with a colour no other op has', () => {
    expect(opOf(copyStep.action)).toBe('copy');
    const [copy] = stepOpIndices([copyStep.action]);
    expect(OPS[copy]).toBe('copy');
    expect(OP_COLOURS.filter((c) => c === OP_COLOURS[copy])).toHaveLength(1);
  });

  it('every op of every step of a plan has an entry and a colour', () => {
    const actions: PlanAction[] = pairs.steps.map((s) => s.action);
    const indices = stepOpIndices(actions);
    actions.forEach((a, i) => expect(OPS[indices[i]], a.kind).toBe(opOf(a)));
    expect(OP_COLOURS).toHaveLength(OPS.length);
  });

  it('the tooltip of a copy slice says copy', () => {
    const src = source([{ action: copyStep.action, label: copyStep.label }], [event(0, 0, 'timed', 0, 1_000)]);
    expect(describeSlice(loadTimeline(src), src, stepsByIndex(src.steps), 0, 0).title).toBe(`copy: step 0`);
  });
});
