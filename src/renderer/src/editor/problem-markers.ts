// The lab's problems (useScenarioValidation) as Monaco markers, beside the JSON mode's own. Where
// Monaco already marks a line (syntax, schema) the lab's own syntax or schema problem there is
// left out, so nothing shows twice; what the JSON Schema cannot say, such as a root outside the
// world or a backend this machine does not have, is always shown, even beside schema errors.
import type { FileProblemInfo } from '../../../shared/run/api/api.js';
import { monaco } from './monaco';
import type { ScenarioProblems } from './useScenarioValidation';

const LAB_OWNER = 'clab';
const JSON_OWNER = 'json';

export interface MarkerSummary {
  errors: number;
  warnings: number;
  first: string | null;
}

const MARKER_SEVERITY = {
  error: monaco.MarkerSeverity.Error,
  warning: monaco.MarkerSeverity.Warning,
  info: monaco.MarkerSeverity.Info,
} as const;

function labMarker(model: monaco.editor.ITextModel, problem: FileProblemInfo): monaco.editor.IMarkerData {
  const line = Math.min(Math.max(problem.line, 1), model.getLineCount());
  const column = Math.min(Math.max(problem.column, 1), model.getLineMaxColumn(line));
  const word = model.getWordAtPosition({ lineNumber: line, column });
  return {
    severity: MARKER_SEVERITY[problem.severity ?? 'error'],
    source: 'clab validate',
    message: problem.path ? `${problem.path}: ${problem.message}` : problem.message,
    startLineNumber: line,
    startColumn: column,
    endLineNumber: line,
    endColumn: word ? word.endColumn : model.getLineMaxColumn(line),
  };
}

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** The lines Monaco's JSON mode marks, as a key that changes when they do. */
export function jsonMarkedLines(model: monaco.editor.ITextModel): string {
  return monaco.editor
    .getModelMarkers({ resource: model.uri, owner: JSON_OWNER })
    .map((m) => m.startLineNumber)
    .join(',');
}

/** Shows the problems found in `checked.text` if that is still the model's text. */
export function applyLabMarkers(model: monaco.editor.ITextModel, checked: ScenarioProblems): void {
  if (model.getValue() !== checked.text) return;
  const beyond = checked.beyond.map((p) => labMarker(model, p));
  // Text that is not JSON: Monaco marks where it breaks; the lab adds only what Monaco cannot say
  // (text nested too deep for its parser).
  if (!parses(checked.text)) return monaco.editor.setModelMarkers(model, LAB_OWNER, beyond);
  const marked = new Set(jsonMarkedLines(model).split(',').filter(Boolean).map(Number));
  monaco.editor.setModelMarkers(model, LAB_OWNER, [
    ...checked.problems.filter((p) => !marked.has(p.line)).map((p) => labMarker(model, p)),
    ...beyond,
  ]);
}

export function clearLabMarkers(model: monaco.editor.ITextModel): void {
  monaco.editor.setModelMarkers(model, LAB_OWNER, []);
}

export function summarizeMarkers(model: monaco.editor.ITextModel): MarkerSummary {
  const markers = monaco.editor.getModelMarkers({ resource: model.uri });
  const errors = markers.filter((m) => m.severity === monaco.MarkerSeverity.Error);
  const first = errors[0] ?? markers[0];
  return {
    errors: errors.length,
    warnings: markers.filter((m) => m.severity === monaco.MarkerSeverity.Warning).length,
    first: first ? `${first.startLineNumber}:${first.startColumn} ${first.message}` : null,
  };
}
