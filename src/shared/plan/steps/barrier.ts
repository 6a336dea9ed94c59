// A barrier step: every rank waits until all have arrived.
import type { BasicStep } from '../../scenario/schema.js';
import type { PlanBuilder, StepAt } from '../builder.js';

export function compileBarrier(b: PlanBuilder, { path, origin, prefix }: StepAt, s: Extract<BasicStep, { op: 'barrier' }>): void {
  b.push(path, s, `${prefix}barrier`, origin, { kind: 'barrier' });
}
