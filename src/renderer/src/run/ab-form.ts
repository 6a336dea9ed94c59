// The run panel's NCCL A/B form (AbSection.tsx): what its fields mean, when Start A/B may be
// pressed, and what the turns said so far read as.
import { AB_API_REPEATS_MAX, type ApiEvent } from '../../../shared/run/api/api.js';

export interface AbFields {
  /** A's and B's NCCL library: paths on the lab's host. */
  libraryA: string;
  libraryB: string;
  /** As typed. */
  repeats: string;
}

export const AB_FIELDS: AbFields = { libraryA: '', libraryB: '', repeats: '3' };

/** The backend a scenario's text names ("backend" at its top), or null where it names none or is not JSON yet. */
export function scenarioBackend(text: string): string | null {
  try {
    const backend = (JSON.parse(text) as { backend?: unknown } | null)?.backend;
    return typeof backend === 'string' ? backend : null;
  } catch {
    return null; // not JSON yet: the editor shows why
  }
}

/** Why Start A/B cannot be pressed for these fields and this scenario, or null where it can. */
export function abFormProblem(fields: AbFields, backend: string | null): string | null {
  if (backend !== 'nccl') return 'An A/B compares two NCCL libraries: the scenario must name the nccl backend ("backend": "nccl").';
  if (!fields.libraryA.trim() || !fields.libraryB.trim()) return "Enter A's and B's NCCL library (paths on the lab's host).";
  const repeats = Number(fields.repeats);
  if (!Number.isInteger(repeats) || repeats < 1 || repeats > AB_API_REPEATS_MAX)
    return `Repeats: a whole number from 1 to ${AB_API_REPEATS_MAX}.`;
  return null;
}

type AbTurn = Extract<ApiEvent, { type: 'ab-turn' }>;
type AbEnd = Extract<ApiEvent, { type: 'ab-end' }>;

/** An A/B started from the panel, as its events have told it so far. */
export interface AbProgress {
  abId: string;
  /** Where the A/B file will be written. */
  file: string;
  total: number;
  turns: AbTurn[];
  end: AbEnd | null;
}

/** The progress with one more event (another A/B's events leave it as it is). */
export function abProgressWith(progress: AbProgress, event: ApiEvent): AbProgress {
  if (event.type === 'ab-turn' && event.abId === progress.abId)
    return { ...progress, total: event.total, turns: [...progress.turns, event] };
  if (event.type === 'ab-end' && event.abId === progress.abId) return { ...progress, end: event };
  return progress;
}

/** One turn as the panel lists it: "2/6 repeat 1 B: passed". */
export const abTurnLine = (turn: AbTurn): string => `${turn.done}/${turn.total} repeat ${turn.repeat + 1} ${turn.side}: ${turn.status}`;
