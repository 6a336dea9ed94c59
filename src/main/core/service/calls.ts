// What the lab service's calls that start something share (its startRun, and startAb in lab-abs.ts).
import type { ApiEvent } from '../../../shared/run/api/api.js';

/** The name scenario text from a window is read under when it has no file yet. */
export const UNSAVED = 'untitled.scenario.json';

/**
 * Passes events on, but holds those that come before the current call has been answered: the
 * caller learns a run's id from startRun's answer, so no event may arrive for a run it does not
 * know yet. Doors send answers as soon as the call's promise settles, before the next macrotask.
 */
export function afterAnswer(emit: (event: ApiEvent) => void): (event: ApiEvent) => void {
  let held: ApiEvent[] | null = [];
  setImmediate(() => {
    for (const event of held ?? []) emit(event);
    held = null;
  });
  return (event) => {
    if (held) held.push(event);
    else emit(event);
  };
}
