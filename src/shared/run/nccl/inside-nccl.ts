// Whether a rank looks inside NCCL: the lab's profiler and tuner plug-ins (native/profiler/) are
// named to NCCL only where the scenario asks ("insideNccl": true), or CLAB_NCCL_PROFILER=1 forces
// them; CLAB_NCCL_PROFILER=0 keeps them out whatever the scenario says. Not by default: what they
// cost small host-launched calls could not be told from the noise of the machines we have
// (docs/MEASUREMENT.md), so a run that does not ask is timed as NCCL alone. Pure: the rank reads
// its environment (worker/nccl-profile.ts); the app and `clab explain` show the same words.

/** The scenario's field that asks, as it is written in the file. */
export const INSIDE_NCCL_FIELD = '"insideNccl": true';

/** The rank's log line, and the app's hint, where the scenario did not ask. */
export const INSIDE_NCCL_NOT_ASKED =
  `NCCL's algorithm, protocol and channels not recorded: the scenario does not ask to see inside NCCL ` +
  `(add ${INSIDE_NCCL_FIELD} to it, or set CLAB_NCCL_PROFILER=1 where clab starts)`;

/** The rank's log line where the environment kept the plug-ins out. */
export const INSIDE_NCCL_FORCED_OFF =
  "NCCL's algorithm, protocol and channels not recorded: CLAB_NCCL_PROFILER=0 keeps the lab's profiler and tuner plug-ins out";

export type InsideNcclChoice = { load: true; why: null } | { load: false; why: string };

/**
 * Whether the plug-ins load, from the scenario's ask (the plan's `insideNccl`) and the value of
 * CLAB_NCCL_PROFILER where the rank starts: "1" loads them, "0" keeps them out, anything else
 * (or unset) leaves it to the scenario; the line the rank's log says where they stay out.
 */
export function insideNcclChoice(asked: boolean, forced: string | undefined): InsideNcclChoice {
  if (forced === '1') return { load: true, why: null };
  if (forced === '0') return { load: false, why: INSIDE_NCCL_FORCED_OFF };
  if (asked) return { load: true, why: null };
  const ignored = forced === undefined ? '' : ` (CLAB_NCCL_PROFILER=${JSON.stringify(forced.slice(0, 40))} is neither 0 nor 1: ignored)`;
  return { load: false, why: INSIDE_NCCL_NOT_ASKED + ignored };
}

/** `clab explain inside-nccl`: what the plug-ins show and how a scenario asks for them. */
export const INSIDE_NCCL_SUMMARY = 'what NCCL chose per step (algorithm, protocol, channels, kernel): only where a scenario asks';

export const INSIDE_NCCL_TEACHING: readonly string[] = [
  `On the nccl backend, a scenario with ${INSIDE_NCCL_FIELD} loads the lab's NCCL profiler and tuner plug-ins into every rank: ` +
    'each step then says which algorithm, protocol and how many channels NCCL chose, which kernel or copy engine ran, ' +
    "and NCCL's own predicted time beside the measurement; the timeline shows each channel's kernel.",
  'Without it they are not loaded, and a run is timed as NCCL alone: on calls below 1 MiB launched from the host, ' +
    'what the plug-ins cost could not be told from run-to-run noise on the machines the lab was measured on (docs/MEASUREMENT.md).',
  'CLAB_NCCL_PROFILER=1 in the environment clab starts in loads them for any scenario; CLAB_NCCL_PROFILER=0 keeps them out whatever the scenario says. ' +
    'A rank that runs without them says so once in its log.',
];

/** Steps whose calls the plug-ins would have seen: NCCL's collectives and send/recv. */
const NCCL_CALLS = new Set(['collective', 'p2p', 'group', 'pair']);

/**
 * The app's hint for a run record: the not-asked line where the ranks ran NCCL's calls, the
 * scenario did not ask, and no step recorded what NCCL chose; null elsewhere.
 */
export function insideNcclHint(record: {
  environment: { backend: string };
  plan: { insideNccl?: boolean };
  steps: readonly { action: { kind: string }; nccl?: unknown }[];
}): string | null {
  if (record.environment.backend !== 'nccl' || record.plan.insideNccl) return null;
  if (!record.steps.some((s) => NCCL_CALLS.has(s.action.kind))) return null;
  return record.steps.some((s) => s.nccl) ? null : INSIDE_NCCL_NOT_ASKED;
}
