// What a run record's parts say about one another, checked where a record is read: every part can
// be valid alone (a record edited by hand, or pieced together from two) while a step, an event or a
// rank points outside the plan or the world. Replay, export and compare index the plan by those
// numbers, so a record whose parts disagree is refused with the path at fault.
import type { Plan } from '../../plan/types.js';

export interface Inconsistency {
  path: (string | number)[];
  message: string;
}

interface RecordParts {
  world: number;
  plan: Plan;
  steps: { index: number; origin: Plan['steps'][number]['origin']; ranks: { rank: number; step: number }[] }[];
  events: { rank: number; step: number }[];
  compares: { index: number }[];
  logs: { rank: number | null }[];
}

const below = (value: number, bound: number) => value >= 0 && value < bound;

/** Where an origin points outside the plan's sweeps, pairs or compare blocks, or a rank outside the world. */
function originProblem(origin: Plan['steps'][number]['origin'], plan: Plan, world: number): Inconsistency | null {
  switch (origin.kind) {
    case 'sweep':
      return below(origin.sweep, plan.sweeps.length)
        ? null
        : { path: ['origin', 'sweep'], message: `expected a sweep of the plan (it has ${plan.sweeps.length})` };
    case 'pairs':
      if (!below(origin.pairs, plan.pairs.length))
        return { path: ['origin', 'pairs'], message: `expected a pairs step of the plan (it has ${plan.pairs.length})` };
      return below(origin.from, world) && below(origin.to, world)
        ? null
        : { path: ['origin'], message: `expected ranks of the world of ${world}` };
    case 'compare':
      return below(origin.compare, plan.compares.length)
        ? null
        : { path: ['origin', 'compare'], message: `expected a compare block of the plan (it has ${plan.compares.length})` };
    default:
      return null;
  }
}

const at = (prefix: (string | number)[], p: Inconsistency | null): Inconsistency | null =>
  p ? { ...p, path: [...prefix, ...p.path] } : null;

export function recordInconsistency(r: RecordParts): Inconsistency | null {
  const { plan, world } = r;
  if (plan.world !== world) return { path: ['world'], message: `expected the plan's world, ${plan.world}` };
  for (const [list, name] of [
    [plan.sweeps, 'sweeps'],
    [plan.pairs, 'pairs'],
    [plan.compares, 'compares'],
    [plan.steps, 'steps'],
  ] as const) {
    const i = list.findIndex((x, index) => x.index !== index);
    if (i >= 0) return { path: ['plan', name, i, 'index'], message: `expected ${i}` };
  }
  for (const [i, s] of plan.steps.entries()) {
    const p = at(['plan', 'steps', i], originProblem(s.origin, plan, world));
    if (p) return p;
  }
  for (const [i, s] of r.steps.entries()) {
    if (!below(s.index, plan.steps.length))
      return { path: ['steps', i, 'index'], message: `expected a step of the plan (it has ${plan.steps.length})` };
    const p = at(['steps', i], originProblem(s.origin, plan, world));
    if (p) return p;
    const bad = s.ranks.findIndex((x) => !below(x.rank, world) || x.step !== s.index);
    if (bad >= 0) return { path: ['steps', i, 'ranks', bad], message: `expected a rank of the world of ${world}, in step ${s.index}` };
  }
  const event = r.events.findIndex((e) => !below(e.rank, world) || !below(e.step, plan.steps.length));
  if (event >= 0) return { path: ['events', event], message: `expected a rank of the world of ${world} and a step of the plan` };
  const compare = r.compares.findIndex((c) => !below(c.index, plan.compares.length));
  if (compare >= 0)
    return { path: ['compares', compare, 'index'], message: `expected a compare block of the plan (it has ${plan.compares.length})` };
  const log = r.logs.findIndex((l) => l.rank !== null && !below(l.rank, world));
  if (log >= 0) return { path: ['logs', log, 'rank'], message: `expected a rank of the world of ${world}` };
  return null;
}
