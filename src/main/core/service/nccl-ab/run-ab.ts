// The turns of an A/B of two NCCL libraries: the scenario once per side per repeat, in the order
// abOrder gives (A B, B A, …). Running one side is the caller's (the CLI runs it on the ranks; a
// test on fakes), so the order, the records kept and the summary are tested without NCCL.
import { abOrder, type AbSideName, type NcclAbSummary } from '../../../../shared/results/nccl-ab.js';
import type { RunRecord } from '../../../../shared/run/record/record.js';
import { summarizeAb, type AbRun } from './summarize.js';

export type RunSide = (turn: {
  repeat: number;
  side: AbSideName;
  library: string;
}) => Promise<{ record: RunRecord; savedTo: string | null }>;

export interface AbRequest {
  scenario: string;
  scenarioFile: string | null;
  repeats: number;
  libraries: Record<AbSideName, string>;
  runSide: RunSide;
  /** Said after each turn: a long A/B shows it is going. */
  onTurn?: (run: AbRun) => void;
  now?: () => Date;
}

export async function runAb(request: AbRequest): Promise<{ runs: AbRun[]; summary: NcclAbSummary }> {
  const createdAt = (request.now ?? (() => new Date()))();
  const runs: AbRun[] = [];
  for (const { repeat, side } of abOrder(request.repeats)) {
    const { record, savedTo } = await request.runSide({ repeat, side, library: request.libraries[side] });
    const run = { repeat, side, record, savedTo };
    runs.push(run);
    request.onTurn?.(run);
  }
  const summary = summarizeAb({
    scenario: request.scenario,
    scenarioFile: request.scenarioFile,
    createdAt,
    repeats: request.repeats,
    paths: request.libraries,
    runs,
  });
  return { runs, summary };
}
