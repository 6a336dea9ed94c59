// The run record from what the coordinator holds: its status from the error and the steps'
// verdicts, how a run meant to fail reads, and the summary a listing shows first.
import { summarizeCompares } from '../../../../shared/run/record/aggregate.js';
import { expectationOf } from '../../../../shared/results/expectation.js';
import { kernelsByStep } from '../../../../shared/run/nccl/nccl-kernels.js';
import { hostDifferences } from '../../../../shared/run/hosts/hosts.js';
import type { Plan } from '../../../../shared/plan/types.js';
import type { BackendName, TimelineEvent } from '../../../../shared/run/rank/protocol.js';
import {
  RECORD_FORMAT,
  RECORD_VERSION,
  type Environment,
  type HostRecord,
  type LogLine,
  type RunError,
  type RunRecord,
  type StepRecord,
} from '../../../../shared/run/record/record.js';

export interface RecordParts {
  id: string;
  createdAt: Date;
  finishedAt: Date;
  scenarioFile: string | null;
  scenario: unknown;
  scenarioText?: string;
  plan: Plan;
  /** The plan the ranks got: with each remote rank's device on its host. */
  sentPlan: Plan;
  environment: Environment;
  error: RunError | null;
  stopped: boolean;
  steps: StepRecord[];
  events: readonly TimelineEvent[];
  logs: readonly LogLine[];
  hosts?: HostRecord[];
}

/** Each collective step's calls by the kernel NCCL ran them on, from the INFO lines its ranks printed (nccl-kernels.ts). */
export function withKernels(
  plan: Plan,
  steps: StepRecord[],
  logs: readonly LogLine[],
  beganNs: ReadonlyMap<string, number>,
  backend: BackendName,
): StepRecord[] {
  if (backend !== 'nccl') return steps;
  const kernels = kernelsByStep(plan, logs, beganNs);
  return steps.map((s) => {
    const k = kernels.get(s.index);
    return k ? { ...s, kernels: k } : s;
  });
}

export function runRecord(p: RecordParts): RunRecord {
  const { steps, error } = p;
  const anyWrong = steps.some((s) => s.verdict === 'fail' || (s.verdict === 'error' && s.pair?.error));
  const status = error ? (p.stopped ? 'aborted' : 'error') : anyWrong ? 'failed' : 'passed';
  const expectation = expectationOf(p.plan, { status, error, steps });
  // The summary a listing shows comes first, so that the file's head holds it (core/library/saved-runs.ts).
  return {
    format: RECORD_FORMAT,
    version: RECORD_VERSION,
    id: p.id,
    createdAt: p.createdAt.toISOString(),
    finishedAt: p.finishedAt.toISOString(),
    scenarioFile: p.scenarioFile,
    world: p.plan.world,
    status,
    environment: p.environment,
    error,
    // How a run meant to fail reads (shared/results/expectation.ts): part of what a listing shows.
    ...(expectation ? { expectation } : {}),
    scenario: p.scenario,
    ...(p.scenarioText !== undefined ? { scenarioText: p.scenarioText } : {}),
    plan: p.sentPlan,
    steps,
    compares: summarizeCompares(p.plan, steps, p.events),
    logs: [...p.logs],
    events: [...p.events].sort((a, b) => a.startNs - b.startNs),
    ...(p.hosts ? { hosts: p.hosts, hostWarnings: hostDifferences(p.hosts) } : {}),
  };
}
