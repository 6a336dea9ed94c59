// Scenario text → a validated scenario or every problem in it, each with the JSON path,
// line:column and what was expected; and compiling it with those positions. Pure: the editor
// runs it on every typing pause, the core on every file it loads.
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { compilePlan, formatPath, PlanError, type CompileOptions, type JsonPath } from '../plan/compile.js';
import type { Plan } from '../plan/types.js';
import { LIMITS } from './limits.js';
import { scenarioSchema, type Scenario } from './schema.js';

export interface FileProblem {
  file: string;
  path: string;
  line: number;
  column: number;
  message: string;
}

export class ScenarioFileError extends Error {
  constructor(readonly problems: FileProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ScenarioFileError';
  }
}

export function formatProblem(p: FileProblem): string {
  return `${p.file}:${p.line}:${p.column}: ${p.path || '(file)'}: ${p.message}`;
}

/**
 * Offset → line:column for one text: the line starts are found once, then each position is a
 * binary search, so a file with many problems costs no more than one pass over it.
 */
export function lineColumns(text: string): (offset: number) => { line: number; column: number } {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    const at = Math.max(0, Math.min(offset, text.length));
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: at - starts[lo] + 1 };
  };
}

/** The problem of a scenario over LIMITS.fileBytes, found before reading it through. */
export const scenarioTooLarge = (file: string, size: number): ScenarioFileError => new ScenarioFileError([{
  file, path: '', line: 1, column: 1,
  message: `the file is ${size} bytes; expected a scenario of at most ${LIMITS.fileBytes} bytes (${LIMITS.fileBytes / 1024 / 1024} MiB)`,
}]);

/** The value at `path`, or the deepest node that exists along it (a missing property is reported at its parent). */
function nodeFor(root: Node | undefined, path: JsonPath): Node | undefined {
  for (let n = path.length; n >= 0; n--) {
    const node = root && findNodeAtLocation(root, path.slice(0, n));
    if (node) return node;
  }
  return root;
}

export interface LoadedScenario {
  file: string;
  text: string;
  raw: unknown;
  scenario: Scenario;
}

/** Parses and validates scenario text; throws ScenarioFileError listing every problem. */
export function parseScenarioText(text: string, file: string): LoadedScenario {
  if (text.length > LIMITS.fileBytes) throw scenarioTooLarge(file, text.length);
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: false, disallowComments: true });
  const at = lineColumns(text);
  if (!root && !errors.length) throw new ScenarioFileError([{ file, path: '', line: 1, column: 1, message: 'the file is empty; expected a JSON object' }]);
  if (errors.length || !root) {
    throw new ScenarioFileError(errors.map((e) => ({ file, path: '', ...at(e.offset), message: `invalid JSON: ${printParseErrorCode(e.error)}` })));
  }
  const raw = JSON.parse(text) as unknown;
  const parsed = scenarioSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ScenarioFileError(
      parsed.error.issues.map((issue) => {
        const path = issue.path as JsonPath;
        const node = nodeFor(root, path);
        return { file, path: formatPath(path), ...at(node?.offset ?? 0), message: issue.message };
      }),
    );
  }
  return { file, text, raw, scenario: parsed.data };
}

/** A problem found beside the text (by the machine, say), placed at the JSON path it concerns. */
export function problemAt(text: string, file: string, path: JsonPath, message: string): FileProblem {
  return { file, path: formatPath(path), ...lineColumns(text)(nodeFor(parseTree(text), path)?.offset ?? 0), message };
}

/** Compiles for a world size, turning plan problems into file problems with positions. */
export function compileLoaded(loaded: LoadedScenario, options: CompileOptions = {}): Plan {
  try {
    return compilePlan(loaded.scenario, options);
  } catch (e) {
    if (!(e instanceof PlanError)) throw e;
    const root = parseTree(loaded.text);
    const at = lineColumns(loaded.text);
    throw new ScenarioFileError(
      e.issues.map((issue) => ({
        file: loaded.file, path: formatPath(issue.path), ...at(nodeFor(root, issue.path)?.offset ?? 0), message: issue.message,
      })),
    );
  }
}
