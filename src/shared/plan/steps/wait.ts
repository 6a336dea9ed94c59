// A wait step: waits for an earlier async step (by id), or for all pending ones.
import type { BasicStep } from '../../scenario/schema.js';
import type { PlanBuilder, StepAt } from '../builder.js';

export function compileWait(b: PlanBuilder, { path, origin, prefix }: StepAt, s: Extract<BasicStep, { op: 'wait' }>): void {
  if (s.id !== undefined && !b.hasAsyncId(s.id)) b.issue([...path, 'id'], `no earlier async step has id "${s.id}"`);
  b.push(path, {}, `${prefix}wait${s.id ? ` ${s.id}` : ''}`, origin, { kind: 'wait', id: s.id ?? null }, { sync: true });
}
