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
  /**
   * Why a turn that would not start ends the A/B here (the app's Stop between two turns), or null
   * where its error is the A/B's own. The turns that ran are then kept, as for a stopped side.
   */
  endsEarly?: (error: unknown) => string | null;
  now?: () => Date;
}

/** Why a side's run was stopped (Ctrl+C, the app's Stop): the A/B ends with it; null where it was not. */
export const stoppedBy = (record: RunRecord): string | null =>
  record.status === 'aborted' && record.error?.code === 'CLAB_STOPPED' ? record.error.message : null;

/**
 * Runs every turn and summarises them. A side that is stopped ends the A/B after it: the turns
 * that ran are summarised (what was measured is kept) and the summary says why it stopped.
 */
export async function runAb(request: AbRequest): Promise<{ runs: AbRun[]; summary: NcclAbSummary }> {
  const createdAt = (request.now ?? (() => new Date()))();
  const runs: AbRun[] = [];
  let stopped: string | undefined;
  for (const { repeat, side } of abOrder(request.repeats)) {
    let turn: Awaited<ReturnType<RunSide>>;
    try {
      turn = await request.runSide({ repeat, side, library: request.libraries[side] });
    } catch (e) {
      const why = request.endsEarly?.(e) ?? null;
      if (why === null || runs.length === 0) throw e;
      stopped = why;
      break;
    }
    const run = { repeat, side, record: turn.record, savedTo: turn.savedTo };
    runs.push(run);
    request.onTurn?.(run);
    const why = stoppedBy(turn.record);
    if (why !== null) {
      stopped = why;
      break;
    }
  }
  const summary = summarizeAb({
    scenario: request.scenario,
    scenarioFile: request.scenarioFile,
    createdAt,
    repeats: request.repeats,
    paths: request.libraries,
    runs,
    ...(stopped !== undefined ? { stopped } : {}),
  });
  return { runs, summary };
}
