// Hand-made run records for the export tests: steps summarized by the same code a run uses
// (summarizeStep), events placed by hand, the whole validated as a record file is when opened.
import { summarizeCompares, summarizeStep, type UnfinishedVerdict } from '../../../src/shared/run/record/aggregate.js';
import type { CollectiveAction, P2pAction, Plan, PlanAction, PlanStep } from '../../../src/shared/plan/types.js';
import type { RankStepResult, TimelineEvent } from '../../../src/shared/run/rank/protocol.js';
import { runRecordSchema, type Environment, type RunRecord } from '../../../src/shared/run/record/record.js';

export const CPU_ENVIRONMENT: Environment = {
  host: 'lab-1',
  platform: 'linux',
  cpus: 2,
  cpuModel: 'cpu',
  memoryBytes: 1e9,
  node: 'v20',
  backend: 'cpu',
  backendNote: null,
  gpus: [],
  versions: { node: '20.0.0' },
  env: {},
};

export const allReduce = (count: number, dtype: CollectiveAction['dtype'] = 'float32'): CollectiveAction => ({
  kind: 'collective',
  op: 'all_reduce',
  dtype,
  redop: 'sum',
  root: 0,
  count,
  inPlace: false,
  data: { kind: 'rank' },
});
export const allGather = (count: number, dtype: CollectiveAction['dtype'] = 'float32'): CollectiveAction => ({
  kind: 'collective',
  op: 'all_gather',
  dtype,
  redop: 'sum',
  root: 0,
  count,
  inPlace: false,
  data: { kind: 'rank' },
});
export const sendRecv = (from: number, to: number, count: number, dtype: P2pAction['dtype'] = 'float32'): P2pAction => ({
  kind: 'p2p',
  from,
  to,
  dtype,
  count,
  data: { kind: 'rank' },
});

export interface StepSpec {
  label: string;
  action: PlanAction;
  /** Per rank taking part: each timed iteration's µs. */
  timesUs: number[][];
  stream?: number;
  origin?: PlanStep['origin'];
  unfinished?: UnfinishedVerdict;
  wrong?: number;
}

export function planStep(index: number, spec: StepSpec): PlanStep {
  return {
    index,
    path: `steps[${index}]`,
    label: spec.label,
    origin: spec.origin ?? { kind: 'step' },
    action: spec.action,
    warmup: 0,
    iters: Math.max(1, spec.timesUs[0]?.length ?? 1),
    timeoutMs: 1000,
    async: false,
    asyncId: null,
    stream: spec.stream ?? 0,
  };
}

const rankResult = (step: number, rank: number, timesUs: number[], wrong: number): RankStepResult => ({
  step,
  rank,
  verdict: wrong ? 'fail' : 'pass',
  checked: 4,
  wrong,
  mismatches: [],
  output: null,
  timesUs,
  note: null,
});

export interface RecordSpec {
  world: number;
  steps: StepSpec[];
  events?: TimelineEvent[];
  environment?: Environment;
  streams?: string[];
  devices?: number[] | null;
  compares?: Plan['compares'];
  sweeps?: Plan['sweeps'];
  id?: string;
}

export function buildRecord(spec: RecordSpec): RunRecord {
  const steps = spec.steps.map((s, i) => planStep(i, s));
  const plan: Plan = {
    world: spec.world,
    devices: spec.devices ?? null,
    streams: spec.streams ?? ['default'],
    steps,
    sweeps: spec.sweeps ?? [],
    pairs: [],
    compares: spec.compares ?? [],
  };
  const stepRecords = spec.steps.map((s, i) =>
    summarizeStep(
      steps[i],
      s.timesUs.map((t, rank) => rankResult(i, rank, t, rank === 0 ? (s.wrong ?? 0) : 0)),
      spec.world,
      s.unfinished ?? null,
    ),
  );
  return runRecordSchema.parse({
    format: 'clab.run',
    version: 1,
    id: spec.id ?? 'run-1',
    createdAt: '2025-01-01T00:00:00.000Z',
    finishedAt: null,
    scenarioFile: 'lab.scenario.json',
    scenario: {},
    plan,
    world: spec.world,
    environment: spec.environment ?? CPU_ENVIRONMENT,
    status: 'passed',
    error: null,
    steps: stepRecords,
    compares: summarizeCompares(plan, stepRecords),
    logs: [],
    events: spec.events ?? [],
  });
}

/** A timeline event; times in µs from an arbitrary clock origin, as ns in the record. */
export const event = (
  rank: number,
  step: number,
  phase: TimelineEvent['phase'],
  startUs: number,
  endUs: number,
  stream = 0,
  name = `step ${step}`,
): TimelineEvent => ({
  rank,
  stream,
  step,
  name,
  phase,
  startNs: 5e9 + startUs * 1e3,
  endNs: 5e9 + endUs * 1e3,
  bytes: 0,
});
