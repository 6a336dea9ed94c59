// What the lab service's calls that start something share (its startRun, and startAb in lab-abs.ts):
// reading the call's scenario, and holding events until the call is answered.
import { runPanelBackend, type ApiEvent, type RunRequest as RunCall } from '../../../shared/run/api/api.js';
import { parseScenarioText, ScenarioFileError, type FileProblem } from '../../../shared/plan/text.js';
import type { RunRequest } from './start-run.js';

/** The name scenario text from a window is read under when it has no file yet. */
const UNSAVED = 'untitled.scenario.json';

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

/** What a start call's parameters say about the scenario to run, read. */
export type ScenarioRequest = Pick<RunRequest, 'loaded' | 'scenarioFile' | 'backend' | 'ranks'>;

/**
 * Reads a start call's scenario (text not saved yet under UNSAVED's name), resolves the Run
 * panel's backend against the scenario's own, and hands them to `prepare`. A scenario that cannot
 * be read, or that `prepare` finds problems in, is the call's answer, not a thrown error.
 */
export function prepareFromCall<T>(
  { text, file, backend, ranks }: Pick<RunCall, 'text' | 'file' | 'backend' | 'ranks'>,
  prepare: (request: ScenarioRequest) => T,
): { ok: true; prepared: T } | { ok: false; problems: FileProblem[] } {
  try {
    const loaded = parseScenarioText(text, file ?? UNSAVED);
    const request = { loaded, scenarioFile: file, backend: runPanelBackend(backend, loaded.scenario), ranks: ranks ?? undefined };
    return { ok: true, prepared: prepare(request) };
  } catch (e) {
    if (e instanceof ScenarioFileError) return { ok: false, problems: e.problems };
    throw e;
  }
}
