// The message of a rank's `failed`: where it failed and why, and for an NCCL or CUDA error what
// NCCL itself said — the rank's last NCCL WARN lines, from its output the core keeps as log lines —
// and what to try next (shared/run/nccl/nccl-hints.ts).
import { isGpuLibraryCode, isNcclWarnLine, ncclHints } from '../../../shared/run/nccl/nccl-hints.js';
import type { LogLine } from '../../../shared/run/record/record.js';

/** The most NCCL WARN lines a failure message carries (the last ones). */
export const WARN_LINES_SHOWN = 5;

export interface RankFailure {
  rank: number;
  step: number | null;
  /** The step's label, when `step` is one. */
  stepLabel: string | null;
  code: string;
  message: string;
}

/** The rank's NCCL WARN lines in `logs`, the last `WARN_LINES_SHOWN`, trimmed. */
export function lastNcclWarnings(logs: readonly LogLine[], rank: number): string[] {
  return logs
    .filter((l) => l.rank === rank && isNcclWarnLine(l.text))
    .slice(-WARN_LINES_SHOWN)
    .map((l) => l.text.trim());
}

/**
 * "rank 1 failed in step 2 (all_reduce 1 MiB): ncclAllReduce failed: …", then, for an NCCL or CUDA
 * error, the rank's last NCCL WARN lines and the hints that apply, one to a line.
 */
export function rankFailureMessage(failure: RankFailure, logs: readonly LogLine[]): string {
  const { rank, step, code } = failure;
  const where = step === null ? 'while starting' : `in step ${step} (${failure.stepLabel ?? '?'})`;
  // The addon's messages name the rank too ("rank 1: ncclAllReduce failed: …"): said once is enough.
  const cause = failure.message.startsWith(`rank ${rank}: `) ? failure.message.slice(`rank ${rank}: `.length) : failure.message;
  const lines = [`rank ${rank} failed ${where}: ${cause}`];
  if (!isGpuLibraryCode(code)) return lines[0];
  const warnings = lastNcclWarnings(logs, rank);
  if (warnings.length) {
    lines.push(`  rank ${rank}'s last NCCL WARN line${warnings.length === 1 ? '' : 's'}:`);
    for (const w of warnings) lines.push(`    ${w}`);
  }
  for (const hint of ncclHints(code, [cause, ...warnings])) lines.push(`  hint: ${hint}`);
  return lines.join('\n');
}
