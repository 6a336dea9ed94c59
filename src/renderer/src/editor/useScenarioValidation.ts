// The editor's own check of the text after typing pauses: parsed and compiled here in the window
// with the shared code (world-dependent rules too, for the ranks the run panel chose), so typing
// never waits on the core. The core is asked only what depends on the machine — can the backend
// asked for hold this world here? — and only when the backend, world or GPUs asked for change.
// The world's checks run even while the schema refuses some steps: on the steps it accepts.
import { useEffect, useMemo, useState } from 'react';
import { runPanelBackend, type ApiResult, type BackendCheck, type FileProblemInfo, type RunRequest } from '../../../shared/run/api/api.js';
import type { JsonPath } from '../../../shared/scenario/json-path.js';
import {
  compileLoaded,
  nestingProblem,
  parseScenarioText,
  problemAt,
  ScenarioFileError,
  worldProblemsOfValidSteps,
} from '../../../shared/plan/text.js';
import type { LabClient } from '../client';

const PAUSE_MS = 300;
const UNSAVED = 'untitled.scenario.json';

/** The problems found in `text`: the text's own and the machine's. */
export interface ScenarioProblems {
  text: string;
  /** Syntax, schema and warnings: where Monaco's JSON mode marks the same line, its marker is enough. */
  problems: FileProblemInfo[];
  /** What the JSON Schema cannot see (the world's checks, the machine's answer, nesting too deep to parse): always shown. */
  beyond: FileProblemInfo[];
}

interface TextCheck {
  text: string;
  file: string;
  problems: FileProblemInfo[];
  beyond: FileProblemInfo[];
  /** What to ask the machine once the text compiles, and where in the text its answer belongs. */
  backend: { request: BackendCheck; key: string; at: JsonPath } | null;
}

export function checkText(text: string, file: string, ranks: number | null, panel: RunRequest['backend']): TextCheck {
  const options = { ranks: ranks ?? undefined };
  // Text too deep to parse has this one problem. Monaco's JSON mode cannot say it (its parser
  // overflows on such text, or marks the line for something else), so it is always shown.
  const deep = nestingProblem(text, file);
  if (deep) return { text, file, problems: [], beyond: [deep], backend: null };
  let loaded;
  try {
    loaded = parseScenarioText(text, file);
  } catch (e) {
    if (!(e instanceof ScenarioFileError)) throw e;
    return { text, file, problems: e.problems, beyond: worldProblemsOfValidSteps(text, file, options), backend: null };
  }
  try {
    const plan = compileLoaded(loaded, options);
    const request = { backend: runPanelBackend(panel, loaded.scenario), world: plan.world, devices: plan.devices };
    // A backend the scenario names is the one refused; else it is the world that does not fit.
    const at = panel === 'auto' && loaded.scenario.backend !== undefined ? ['backend'] : ['world'];
    return { text, file, problems: loaded.warnings, beyond: [], backend: { request, key: JSON.stringify(request), at } };
  } catch (e) {
    if (!(e instanceof ScenarioFileError)) throw e;
    return { text, file, problems: loaded.warnings, beyond: e.problems.filter((p) => p.severity !== 'warning'), backend: null };
  }
}

export function useScenarioValidation(
  client: LabClient,
  text: string,
  file: string | null,
  ranks: number | null,
  panel: RunRequest['backend'],
  connected: boolean,
  /** Said as a note instead of the machine's refusal: a replay recorded on a backend this machine lacks (replayBackendNote). */
  replayNote: string | null = null,
): ScenarioProblems {
  const [checked, setChecked] = useState<TextCheck>({ text: '', file: UNSAVED, problems: [], beyond: [], backend: null });
  const [machine, setMachine] = useState<{ key: string; answer: ApiResult<'checkBackend'> } | null>(null);

  useEffect(() => {
    const timer = setTimeout(() => setChecked(checkText(text, file ?? UNSAVED, ranks, panel)), PAUSE_MS);
    return () => clearTimeout(timer);
  }, [text, file, ranks, panel]);

  const ask = checked.backend;
  useEffect(() => {
    if (!connected || !ask) return;
    let current = true;
    client.call('checkBackend', ask.request).then(
      (answer) => {
        if (current) setMachine({ key: ask.key, answer });
      },
      (e: Error) => console.warn('checkBackend failed:', e.message),
    );
    return () => {
      current = false;
    };
    // Asked again only when what is asked changes, not on every text that compiles.
  }, [client, connected, ask?.key]);

  return useMemo(() => {
    const answer = machine && ask && machine.key === ask.key ? machine.answer : null;
    const { text, problems, beyond } = checked;
    if (!answer || answer.ok || !ask) return { text, problems, beyond };
    const refusal = replayNote
      ? { ...problemAt(text, checked.file, ask.at, replayNote), severity: 'info' as const }
      : problemAt(text, checked.file, ask.at, answer.reason);
    return { text, problems, beyond: [...beyond, refusal] };
  }, [checked, ask, machine, replayNote]);
}
