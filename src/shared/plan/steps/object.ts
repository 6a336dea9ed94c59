// An object collective step (broadcast_object, all_gather_object, …): JSON values, one per rank.
import type { Json, ObjectCollectiveName } from '../../ops/index.js';
import type { BasicStep } from '../../scenario/schema.js';
import type { PlanBuilder, StepAt } from '../builder.js';

export type ObjectStep = Extract<BasicStep, { op: ObjectCollectiveName }>;

export function compileObject(b: PlanBuilder, { path, origin, prefix }: StepAt, s: ObjectStep): void {
  const world = b.world;
  if (s.objects && s.objects.length !== 1 && s.objects.length !== world) {
    b.issue(
      [...path, 'objects'],
      `objects has ${s.objects.length} values for ${world} ranks: give one value for every rank, or one per rank (${world})`,
    );
  }
  const action = {
    kind: 'object' as const,
    op: s.op,
    root: b.rankAt([...path, 'root'], s.root, 0),
    objects: (s.objects as Json[] | undefined) ?? null,
  };
  // Object sizes decide the second call, so they are always waited for (as in torch).
  b.push(path, s, `${prefix}${s.op}`, origin, action, { sync: true });
}
