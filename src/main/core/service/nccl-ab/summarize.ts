// The A/B summary of a scenario's runs on two NCCL libraries: per step, each repeat's B time per op
// over the same repeat's A (paired, so what drifts between repeats cancels), read with the lab's
// paired statistics, the GPU benches' too (shared/data/stats.ts: median and its distribution-free interval).
import { keyedSteps, type StepKey } from '../../../../shared/results/compare-runs.js';
import { bandwidthTime, medianWithInterval, pairedRatios, type MedianInterval } from '../../../../shared/data/stats.js';
import type { AbLibrary, AbSideName, AbStep, AbTurn, AbVerdict, NcclAbSummary } from '../../../../shared/results/nccl-ab.js';
import type { RunRecord } from '../../../../shared/run/record/record.js';
import { NCCL_AB_FORMAT, NCCL_AB_VERSION } from '../../../../shared/run/api/nccl-ab-file.js';

export const AB_RULE =
  'B/A = B’s time per op over A’s in the same repeat; median over repeats, 95 % interval (order statistics; under 6 repeats: their range); faster / slower where the whole interval is below / above 1, else within noise';

export interface AbRun {
  repeat: number;
  side: AbSideName;
  record: RunRecord;
  savedTo: string | null;
}

export interface AbSummaryInput {
  scenario: string;
  scenarioFile: string | null;
  createdAt: Date;
  repeats: number;
  /** The paths given to --nccl. */
  paths: Record<AbSideName, string>;
  runs: AbRun[];
  /** Why the A/B ended before its last turn (NcclAbSummary.stopped). */
  stopped?: string;
}

/** B against A: faster or slower only where the whole interval of B/A lies below or above 1 (an end at 1 includes it). */
export function abVerdict(interval: MedianInterval): AbVerdict {
  if (!interval.n) return 'n/a';
  return interval.hi < 1 ? 'faster' : interval.lo > 1 ? 'slower' : 'within noise';
}

function libraryOf(path: string, runs: AbRun[]): AbLibrary {
  const loaded = runs.map((r) => r.record.environment.ncclLibrary).find((l) => l !== undefined);
  return { path, version: loaded?.version ?? null, sha256: loaded?.sha256 ?? null };
}

/** Each repeat's time per op (µs; NaN where that repeat did not time it) of every step, by key. */
function timesByStep(runs: AbRun[], repeats: number): Map<string, { key: StepKey; us: number[] }> {
  const out = new Map<string, { key: StepKey; us: number[] }>();
  for (const run of runs)
    for (const [k, { key, step }] of keyedSteps(run.record)) {
      const entry = out.get(k) ?? { key, us: Array<number>(repeats).fill(NaN) };
      // A step whose data was wrong, or that failed or did not run, has no time to compare.
      if ((step.verdict === 'pass' || step.verdict === 'none') && step.timing) entry.us[run.repeat] = bandwidthTime(step.timing);
      out.set(k, entry);
    }
  return out;
}

const medianOf = (us: number[]) => {
  const m = medianWithInterval(us);
  return m.n ? m.median : null;
};

/** The summary of the runs of both sides; a step either side lacks, or that no repeat timed on both, reads n/a. */
export function summarizeAb(input: AbSummaryInput): NcclAbSummary {
  const sideRuns = (side: AbSideName) => input.runs.filter((r) => r.side === side);
  const a = timesByStep(sideRuns('A'), input.repeats);
  const b = timesByStep(sideRuns('B'), input.repeats);
  const steps: AbStep[] = [];
  const none = () => Array<number>(input.repeats).fill(NaN);
  // In A's order, then any step only B has (a side stopped or failed before the others' steps).
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(k) ?? { key: b.get(k)!.key, us: none() };
    const y = b.get(k) ?? { key: x.key, us: none() };
    const interval = medianWithInterval(pairedRatios(y.us, x.us));
    const has = interval.n > 0;
    steps.push({
      ...x.key,
      aUs: medianOf(x.us),
      bUs: medianOf(y.us),
      ratio: has ? interval.median : null,
      lo: has ? interval.lo : null,
      hi: has ? interval.hi : null,
      pairs: interval.n,
      exact: interval.exact,
      verdict: abVerdict(interval),
    });
  }
  const turns: AbTurn[] = input.runs.map((r) => ({ repeat: r.repeat, side: r.side, record: r.savedTo, status: r.record.status }));
  return {
    format: NCCL_AB_FORMAT,
    version: NCCL_AB_VERSION,
    scenario: input.scenario,
    scenarioFile: input.scenarioFile,
    createdAt: input.createdAt.toISOString(),
    repeats: input.repeats,
    rule: AB_RULE,
    libraries: { A: libraryOf(input.paths.A, sideRuns('A')), B: libraryOf(input.paths.B, sideRuns('B')) },
    turns,
    steps,
    ...(input.stopped !== undefined ? { stopped: input.stopped } : {}),
  };
}
