// Small hand-made run sources: a plan of the given actions and events placed by hand, so that
// each test reads its expected lanes and times straight from its own lines.
import type { CollectiveAction, P2pAction, PlanAction, PlanStep, StepOrigin } from '../../../src/shared/plan/types';
import type { TimelineEvent } from '../../../src/shared/run/rank/protocol';
import type { StepRecord } from '../../../src/shared/run/record/record';
import type { TimelineSource } from '../../../src/renderer/src/timeline/source';

export const send = (from: number, to: number): P2pAction =>
  ({
    kind: 'p2p',
    from,
    to,
    dtype: 'float32',
    count: 4,
    data: { kind: 'arange', start: 1 },
  }) as P2pAction;

export const allReduce = (): CollectiveAction =>
  ({
    kind: 'collective',
    op: 'all_reduce',
    dtype: 'float32',
    redop: 'sum',
    root: 0,
    count: 4,
    inPlace: true,
    data: { kind: 'arange', start: 1 },
  }) as CollectiveAction;

export const compute = (): PlanAction => ({ kind: 'compute', dtype: 'float16', m: 8, n: 8, k: 8, ranks: null });

export interface StepSpec {
  action: PlanAction;
  label?: string;
  stream?: number;
  origin?: StepOrigin;
}

export function planStep(index: number, spec: StepSpec): PlanStep {
  return {
    index,
    path: `steps[${index}]`,
    label: spec.label ?? `step ${index}`,
    origin: spec.origin ?? { kind: 'step' },
    action: spec.action,
    warmup: 0,
    iters: 1,
    timeoutMs: 1000,
    async: false,
    asyncId: null,
    stream: spec.stream ?? 0,
  };
}

export function event(
  rank: number,
  step: number,
  phase: TimelineEvent['phase'],
  startNs: number,
  endNs: number,
  stream = 0,
  bytes = 0,
): TimelineEvent {
  return { rank, stream, step, name: `step ${step}`, phase, startNs, endNs, bytes };
}

export function stepRecord(index: number, action: PlanAction, extra: Partial<StepRecord> = {}): StepRecord {
  return {
    index,
    path: `steps[${index}]`,
    label: `step ${index}`,
    origin: { kind: 'step' },
    action,
    verdict: 'pass',
    wrong: 0,
    ranks: [],
    timing: null,
    bytes: 0,
    algbw: null,
    busbw: null,
    flops: null,
    ...extra,
  };
}

export function source(
  steps: StepSpec[],
  events: TimelineEvent[],
  opts: { streams?: string[]; world?: number; compares?: TimelineSource['plan']['compares'] } = {},
): TimelineSource {
  const world = opts.world ?? 2;
  return {
    plan: {
      world,
      devices: null,
      streams: opts.streams ?? ['default'],
      steps: steps.map((s, i) => planStep(i, s)),
      sweeps: [],
      pairs: [],
      compares: opts.compares ?? [],
    },
    world,
    steps: [],
    events,
    compares: [],
  };
}
