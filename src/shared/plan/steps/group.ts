// A group step: collectives and transfers issued together (ncclGroupStart/End).
import type { BasicStep } from '../../scenario/schema.js';
import type { PlanBuilder, StepAt } from '../builder.js';
import { collectiveAction } from './collective.js';
import { p2pAction } from './p2p.js';

export function compileGroup(b: PlanBuilder, { path, origin, prefix }: StepAt, s: Extract<BasicStep, { op: 'group' }>): void {
  const items = s.steps.map((item, i) =>
    'from' in item ? p2pAction(b, [...path, 'steps', i], item, s.transport) : collectiveAction(b, [...path, 'steps', i], item),
  );
  const copies = items.filter((i) => i.kind === 'p2p' && i.transport === 'copy-engine').length;
  const how = copies === 0 ? '' : copies === items.length ? ', copy engine' : `, ${copies} by copy engine`;
  b.push(path, s, `${prefix}group(${items.length}${how})`, origin, { kind: 'group', items });
}
