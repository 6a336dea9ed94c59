// What a rank reports of one step (RankStepResult): the verdict from its checks, its times, and a
// note a learner reads where there was nothing to check.
import type { PlanStep } from '../shared/plan/types.js';
import type { RankStepResult } from '../shared/run/rank/protocol.js';
import type { NativeTimes } from '../addon/native-api.js';
import type { Outcome } from './outcome.js';

/** Each iteration's duration (µs), from the backend's times. */
export const durationsUs = (t: NativeTimes | null) => (t ? t.startNs.map((s, i) => (t.endNs[i] - s) / 1e3) : []);

const loopHostOf = ({ issueNs, faults, blocked, preempted }: NonNullable<NativeTimes['loopHost']>) => ({
  issueUs: issueNs / 1e3,
  faults,
  blocked,
  preempted,
});

/** The result of `step` on `rank` from its outcome and the checks it gave. */
export function stepResult(step: PlanStep, rank: number, outcome: Outcome, checks: ReturnType<Outcome['checks']>): RankStepResult {
  const inputs = outcome.inputs?.filter((i) => i !== null) ?? [];
  const a = step.action;
  let note = outcome.note;
  if (checks.length === 0 && note === null && (a.kind === 'collective' || a.kind === 'object')) note = 'no output on this rank';
  const sent = a.kind === 'p2p' || (a.kind === 'pair' && !outcome.error);
  if (checks.length === 0 && note === null && sent && a.from === rank) note = `sent to rank ${a.to}`;
  const wrong = checks.reduce((s, c) => s + c.check.wrong, 0);
  const previews = checks.map((c) => c.preview);
  const timed = outcome.timed;
  return {
    step: step.index,
    rank,
    verdict: outcome.error ? 'error' : checks.length === 0 ? 'none' : wrong > 0 ? 'fail' : 'pass',
    ...(outcome.error ? { error: outcome.error } : {}),
    checked: checks.reduce((s, c) => s + c.check.checked, 0),
    wrong,
    mismatches: checks.flatMap((c) => c.check.mismatches).slice(0, 5),
    output: previews.some((p) => p !== null) ? previews.filter((p) => p !== null).join(' | ') : null,
    input: inputs.length ? inputs.join(' | ') : null,
    timesUs: durationsUs(timed),
    ...(timed?.startNs.length ? { spanUs: (timed.endNs[timed.endNs.length - 1] - timed.startNs[0]) / 1e3 } : {}),
    ...(timed?.loopEndNs !== undefined ? { loopUs: (timed.loopEndNs - timed.loopStartNs!) / 1e3 } : {}),
    ...(timed?.loopHost ? { loopHost: loopHostOf(timed.loopHost) } : {}),
    ...(timed?.launch === 'graph' ? { launch: 'graph' as const } : {}),
    note,
    ...(outcome.nccl ? { nccl: outcome.nccl } : {}),
    ...(timed?.windows ? { windows: timed.windows } : {}),
  };
}
