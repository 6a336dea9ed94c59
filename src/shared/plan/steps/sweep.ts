// A sweep: one operation over sizes, nccl-tests style, one plan step per size.
import { DTYPE_INFO } from '../../data/dtypes.js';
import type { Redop } from '../../data/reduce.js';
import { formatBytes } from '../../data/units.js';
import { COLLECTIVE_DESCRIPTORS } from '../../ops/index.js';
import { formatPath, type JsonPath } from '../../scenario/json-path.js';
import type { Step } from '../../scenario/schema.js';
import type { PlanBuilder } from '../builder.js';
import type { PlanAction, StepOrigin } from '../types.js';
import { collectiveAction } from './collective.js';
import { p2pAction } from './p2p.js';

type SweepStep = Extract<Step, { op: 'sweep' }>;

export function compileSweep(b: PlanBuilder, path: JsonPath, s: SweepStep): void {
  const world = b.world;
  const index = b.plan.sweeps.length;
  const dtype = b.dtypeOf(s.dtype);
  const redop: Redop = s.redop ?? b.defaults.redop ?? 'sum';
  const factor = s.factor ?? 2;
  if (s.minBytes > s.maxBytes) b.issue([...path, 'maxBytes'], `maxBytes (${s.maxBytes}) is smaller than minBytes (${s.minBytes})`);
  if (s.minBytes < 1) b.issue([...path, 'minBytes'], 'expected at least 1 byte');
  const label = s.label ?? `${s.collective} sweep`;
  if (b.refusesValues(path, s.data, b.defaults.data, 'a sweep')) return;
  b.plan.sweeps.push({ index, path: formatPath(path), label, op: s.collective, dtype, redop, root: s.root ?? 0 });
  const p2pSweep = s.collective === 'send' || s.collective === 'sendrecv';
  if (p2pSweep && s.registration === 'window')
    b.issue(
      [...path, 'registration'],
      `"registration": "window" applies to collectives, which NCCL's symmetric kernels run; a ${s.collective} sweep has none`,
    );
  // Registering windows is a call of every rank: a send sweep is two ranks'.
  if (s.collective === 'send' && s.ctaPolicy === 'zero' && world > 2)
    b.issue(
      [...path, 'ctaPolicy'],
      `the zero-SM policy registers each size's buffers as windows, a call of every rank, and a send sweep runs on two of the ${world}: expected a collective or sendrecv sweep`,
    );
  if (s.collective === 'sendrecv' && world < 2) {
    b.issue([...path, 'collective'], `sendrecv needs at least 2 ranks; the world has ${world}`);
    return;
  }
  const elementBytes = DTYPE_INFO[dtype].bytes;
  /** One size's count, the bytes it is labelled with, and its action; p2p sweeps count the bytes each rank sends. */
  const atSize = (bytes: number): { count: number; size: number; action: () => PlanAction } => {
    if (s.collective === 'send' || s.collective === 'sendrecv') {
      const count = Math.max(1, Math.floor(bytes / elementBytes));
      const transfer = (from: number, to: number) => p2pAction(b, path, { from, to, count, dtype, data: s.data });
      // sendrecv is nccl-tests' sendrecv_perf: rank r sends to r+1 and receives from r-1, all in one group.
      const action = (): PlanAction =>
        s.collective === 'send'
          ? transfer(s.from ?? 0, s.to ?? 1)
          : { kind: 'group', items: Array.from({ length: world }, (_, r) => transfer(r, (r + 1) % world)) };
      return { count, size: count * elementBytes, action };
    }
    const desc = COLLECTIVE_DESCRIPTORS[s.collective];
    const count = desc.countForBytes(bytes, elementBytes, world);
    const action = () => collectiveAction(b, path, { ...s, op: s.collective, count } as never);
    return { count, size: desc.algBytes(count, elementBytes, world), action };
  };
  b.enterSplit(s.ctaPolicy ? { ctaPolicy: s.ctaPolicy } : null, !p2pSweep && b.registrationOf(s, s.ctaPolicy));
  const seen = new Set<number>();
  for (let bytes = Math.max(1, s.minBytes); bytes <= s.maxBytes; bytes *= factor) {
    const { count, size, action } = atSize(bytes);
    if (seen.has(count)) continue;
    seen.add(count);
    const origin: StepOrigin = { kind: 'sweep', sweep: index, size };
    b.push(path, { ...s, label: undefined }, `${label} ${formatBytes(size)}`, origin, action());
  }
  b.leaveSplit();
}
