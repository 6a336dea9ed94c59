// A tensor collective step (all_reduce, broadcast, …): its count, root and in-place form checked
// against the operation's descriptor (ops/) and the world.
import { COLLECTIVE_DESCRIPTORS } from '../../ops/index.js';
import type { JsonPath } from '../../scenario/json-path.js';
import type { BasicStep } from '../../scenario/schema.js';
import { DEFAULT_PATTERN, type PlanBuilder, type StepAt } from '../builder.js';
import type { CollectiveAction } from '../types.js';

export type CollectiveStep = Extract<BasicStep, { count: number; op: keyof typeof COLLECTIVE_DESCRIPTORS }>;

/** The action of a collective step, a group's item or a sweep's size. */
export function collectiveAction(b: PlanBuilder, path: JsonPath, s: CollectiveStep): CollectiveAction {
  const world = b.world;
  const desc = COLLECTIVE_DESCRIPTORS[s.op];
  const err = desc.countError(s.count, world);
  if (err) b.issue([...path, 'count'], err);
  if (s.inPlace && !desc.inPlace) b.issue([...path, 'inPlace'], `${s.op} has no in-place form`);
  const read = 'read' in s ? s.read : undefined;
  if (read === 'rank-slice' && (desc.inPlace?.layout !== 'recv-in-send' || s.inPlace)) {
    b.issue(
      [...path, 'read'],
      `"rank-slice" reads one slice of an output as large as the input: it applies to reduce_scatter and scatter, out of place`,
    );
  }
  const dtype = b.dtypeOf(s.dtype);
  const root = b.rankAt([...path, 'root'], s.root, 0);
  if (!err && root < world)
    b.checkValues(path, s.data, {
      dtype,
      inputLength: (rank) => desc.buffers({ count: s.count, world, rank, root }).send,
      chunked: desc.chunkedInput,
      what: `${s.op} of count ${s.count}${desc.rooted ? `, root ${root}` : ''}, on ${world} rank${world === 1 ? '' : 's'}`,
    });
  return {
    kind: 'collective',
    op: s.op,
    dtype,
    redop: s.redop ?? b.defaults.redop ?? 'sum',
    root,
    count: s.count,
    inPlace: s.inPlace ?? desc.inPlace?.byDefault ?? false,
    data: s.data ?? b.defaults.data ?? DEFAULT_PATTERN,
    ...(read === 'rank-slice' ? { read } : {}),
  };
}

/** A collective step of its own: on a communicator that registers its buffers as windows where it asks. */
export function compileCollective(b: PlanBuilder, { path, origin, prefix }: StepAt, s: CollectiveStep): void {
  const window = origin.kind !== 'compare' && b.registrationOf(s);
  if (origin.kind === 'compare' && s.registration !== undefined)
    b.issue(
      [...path, 'registration'],
      '"registration" applies to steps and sweeps outside compare blocks (a variant\'s "nccl": {"ctaPolicy": "zero"} registers its buffers as windows)',
    );
  b.enterSplit(null, window);
  const action = collectiveAction(b, path, s);
  const perRank = b.perRankActions(path, s, s.perRank, (at, o) => collectiveAction(b, at, o));
  b.push(path, s, `${prefix}${s.op}`, origin, action, { perRank });
  if (window) b.leaveSplit();
}
