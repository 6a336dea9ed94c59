// Scenario text → a validated scenario or every problem in it, each with the JSON path,
// line:column and what was expected; and compiling it with those positions. Pure: the editor
// runs it on every typing pause, the core on every file it loads.
import { parseTree, type Node, type ParseError } from 'jsonc-parser';
import { compilePlan, PlanError, type CompileOptions } from './compile.js';
import { formatPath, type JsonPath } from '../scenario/json-path.js';
import type { Plan } from './types.js';
import { LIMITS } from '../scenario/limits.js';
import { issueMessage, jsonErrorMessage } from '../scenario/messages.js';
import { scenarioWarnings } from '../scenario/mistakes.js';
import { scenarioSchema, SCENARIO_VERSION, stepSchema, type Scenario } from '../scenario/schema.js';

export interface FileProblem {
  file: string;
  path: string;
  line: number;
  column: number;
  message: string;
  /** Absent means 'error'. A warning (a duplicate key, a deliberate mistake) is shown but refuses nothing. */
  severity?: 'error' | 'warning';
}

export const isWarning = (p: FileProblem) => p.severity === 'warning';

export class ScenarioFileError extends Error {
  constructor(readonly problems: FileProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ScenarioFileError';
  }
}

export function formatProblem(p: FileProblem): string {
  return `${p.file}:${p.line}:${p.column}: ${isWarning(p) ? 'warning: ' : ''}${p.path || '(file)'}: ${p.message}`;
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

/**
 * The problem of a scenario over LIMITS.fileBytes, found before reading it through: its size, or
 * null where it has none to tell (a pipe, /dev/zero) and more than the limit was read.
 */
export const scenarioTooLarge = (file: string, size: number | null): ScenarioFileError =>
  new ScenarioFileError([
    {
      file,
      path: '',
      line: 1,
      column: 1,
      message: `${size === null ? `more than ${LIMITS.fileBytes} bytes were read and the file goes on` : `the file is ${size} bytes`}; expected a scenario of at most ${LIMITS.fileBytes} bytes (${LIMITS.fileBytes / 1024 / 1024} MiB)`,
    },
  ]);

/** A property's value; of a key given twice, the last one (the one JSON.parse keeps). */
function child(node: Node, key: string | number): Node | undefined {
  if (node.type === 'array') return typeof key === 'number' ? node.children?.[key] : undefined;
  if (node.type !== 'object') return undefined;
  const property = node.children?.findLast((p) => p.children?.[0].value === String(key) && p.children.length === 2);
  return property?.children![1];
}

/** The value at `path`, or the deepest node that exists along it (a missing property is reported at its parent). */
function nodeFor(root: Node | undefined, path: JsonPath): Node | undefined {
  let node = root;
  for (const key of path) {
    const next = node && child(node, key);
    if (!next) return node;
    node = next;
  }
  return node;
}

/** A key given twice in one object: a warning at the one that counts, naming where the ignored one is. */
function duplicateKeys(root: Node, file: string, at: ReturnType<typeof lineColumns>): FileProblem[] {
  const found: FileProblem[] = [];
  const visit = (node: Node, path: JsonPath) => {
    if (node.type === 'array') node.children?.forEach((c, i) => visit(c, [...path, i]));
    if (node.type !== 'object') return;
    const last = new Map<string, Node>();
    for (const property of node.children ?? []) {
      const [key, value] = property.children ?? [];
      if (!key || !value) continue;
      const name = String(key.value);
      const earlier = last.get(name);
      last.set(name, property);
      if (earlier) {
        const first = at(earlier.offset);
        found.push({
          file,
          path: formatPath([...path, name]),
          ...at(key.offset),
          severity: 'warning',
          message: `"${name}" is given twice in this object: this value is used, the one at line ${first.line}, column ${first.column} is ignored`,
        });
      }
    }
    for (const property of last.values()) {
      const [key, value] = property.children!;
      visit(value, [...path, String(key.value)]);
    }
  };
  visit(root, []);
  return found;
}

const BOM = '\uFEFF';
/** The text as JSON reads it: a space in a leading byte order mark's place keeps every offset where the editor has it. */
const jsonText = (text: string) => (text.startsWith(BOM) ? ` ${text.slice(1)}` : text);

export interface LoadedScenario {
  file: string;
  text: string;
  raw: unknown;
  scenario: Scenario;
  /** Problems that refuse nothing (duplicate keys, deliberate mistakes); shown by validate and before a run. */
  warnings: FileProblem[];
}

/** Past the first few, JSON errors are the parser recovering from the same mistake. */
const MAX_JSON_ERRORS = 20;

function jsonProblems(errors: ParseError[], json: string, file: string, at: ReturnType<typeof lineColumns>): FileProblem[] {
  const shown: FileProblem[] = [];
  const seen = new Set<string>();
  let i = 0;
  for (; i < errors.length && shown.length < MAX_JSON_ERRORS; i++) {
    const e = errors[i];
    const message = `invalid JSON: ${jsonErrorMessage(e, json)}`;
    // The parser may report one mistake twice at one place as it recovers.
    if (seen.has(`${e.offset}:${message}`)) continue;
    seen.add(`${e.offset}:${message}`);
    shown.push({ file, path: '', ...at(e.offset), message });
  }
  if (i < errors.length)
    shown.push({
      ...shown[shown.length - 1],
      message: `invalid JSON: ${errors.length - i} more reports after this one, most likely caused by the ones above`,
    });
  return shown;
}

/** An object or list the nesting count has open: the key or index its current value is at. */
interface Open {
  bracket: number;
  /** An object's key, as the offsets of its quoted text; null before its colon. */
  key: [number, number] | null;
  index: number;
}

/** The JSON path of the value the innermost of `open` is at (as far as broken text names it). */
function pathOf(json: string, open: Open[]): JsonPath {
  const path: JsonPath = [];
  for (const o of open) {
    if (o.bracket === 0x5b) path.push(o.index);
    else if (!o.key) break;
    else path.push(keyText(json.slice(...o.key)));
  }
  return path;
}

const keyText = (quoted: string): string => {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.replace(/^"|"$/g, '');
  }
};

/**
 * Where `json` first opens more than `max` objects and lists inside one another, with the JSON path
 * of what opens there, or null. Counted as the parser would nest, erring on the deep side: strings
 * end at their quote or, as the parser's scanner ends them, at a line break; a closing bracket that
 * does not match what is open closes nothing (the parser may skip it), so broken text can never
 * hide depth from this count.
 */
function tooDeep(json: string, max: number): { offset: number; path: JsonPath } | null {
  const open: Open[] = [];
  let lastString: [number, number] | null = null;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    const top = open[open.length - 1];
    if (c === 0x22) {
      // a string: skip to its closing quote or the end of its line
      const start = i;
      for (i++; i < json.length; i++) {
        const d = json.charCodeAt(i);
        if (d === 0x22 || d === 0x0a || d === 0x0d) break;
        if (d === 0x5c) i++;
      }
      lastString = [start, Math.min(i + 1, json.length)];
    } else if (c === 0x3a) {
      if (top?.bracket === 0x7b) top.key = lastString;
    } else if (c === 0x2c) {
      if (top) {
        top.index++;
        top.key = null;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (open.length === max) return { offset: i, path: pathOf(json, open) };
      open.push({ bracket: c, key: null, index: 0 });
    } else if ((c === 0x7d && top?.bracket === 0x7b) || (c === 0x5d && top?.bracket === 0x5b)) {
      open.pop();
    }
  }
  return null;
}

/**
 * The problem of text nested more than LIMITS.nesting deep, or null. Every reading of scenario text
 * asks this first: the JSON parser and the schema recurse once per level, and a deep enough text
 * would overflow the stack (a RangeError instead of a problem).
 */
export function nestingProblem(text: string, file: string): FileProblem | null {
  const deep = tooDeep(jsonText(text), LIMITS.nesting);
  if (!deep) return null;
  return {
    file,
    path: formatPath(deep.path),
    ...lineColumns(text)(deep.offset),
    message: `objects and lists are nested more than ${LIMITS.nesting} deep here; a scenario needs about 10 levels`,
  };
}

/** The syntax tree of `json`, or undefined where it nests too deep to parse (nestingProblem says where). */
function treeOf(json: string, errors?: ParseError[]): Node | undefined {
  if (tooDeep(json, LIMITS.nesting)) return undefined;
  return parseTree(json, errors, { allowTrailingComma: false, disallowComments: true });
}

/**
 * Parses and validates scenario text; throws ScenarioFileError listing every problem (errors,
 * then any warnings). A byte order mark at the start, as some Windows editors write, is accepted.
 */
export function parseScenarioText(text: string, file: string): LoadedScenario {
  if (text.length > LIMITS.fileBytes) throw scenarioTooLarge(file, text.length);
  const deep = nestingProblem(text, file);
  if (deep) throw new ScenarioFileError([deep]);
  const json = jsonText(text);
  const errors: ParseError[] = [];
  const root = treeOf(json, errors);
  const at = lineColumns(text);
  if (json.trim() === '')
    throw new ScenarioFileError([{ file, path: '', line: 1, column: 1, message: 'the file is empty; expected a JSON object' }]);
  if (errors.length || !root) {
    throw new ScenarioFileError(jsonProblems(errors, json, file, at));
  }
  const warnings = duplicateKeys(root, file, at);
  const raw = JSON.parse(json) as unknown;
  // Without zod's compiled fast path: a scenario is parsed once or so per process, where compiling
  // it costs more than it saves (the all-in-one 10.3 ms against 4.5 ms jitless, 2026-11-28).
  const parsed = scenarioSchema.safeParse(raw, { jitless: true });
  if (!parsed.success) {
    throw new ScenarioFileError([
      ...parsed.error.issues.map((issue) => {
        const { path, message } = issueMessage(issue, scenarioSchema, raw);
        const node = nodeFor(root, path);
        return { file, path: formatPath(path), ...at(node?.offset ?? 0), message };
      }),
      ...warnings,
    ]);
  }
  for (const w of scenarioWarnings(parsed.data)) {
    warnings.push({ file, path: formatPath(w.path), ...at(nodeFor(root, w.path)?.offset ?? 0), message: w.message, severity: 'warning' });
  }
  return { file, text, raw, scenario: parsed.data, warnings };
}

/** A problem found beside the text (by the machine, say), placed at the JSON path it concerns. */
export function problemAt(text: string, file: string, path: JsonPath, message: string): FileProblem {
  return { file, path: formatPath(path), ...lineColumns(text)(nodeFor(treeOf(jsonText(text)), path)?.offset ?? 0), message };
}

/** Compiles for a world size, turning plan problems into file problems with positions. */
export function compileLoaded(loaded: LoadedScenario, options: CompileOptions = {}): Plan {
  try {
    return compilePlan(loaded.scenario, options);
  } catch (e) {
    if (!(e instanceof PlanError)) throw e;
    const root = treeOf(jsonText(loaded.text));
    const at = lineColumns(loaded.text);
    throw new ScenarioFileError([
      ...e.issues.map((issue) => ({
        file: loaded.file,
        path: formatPath(issue.path),
        ...at(nodeFor(root, issue.path)?.offset ?? 0),
        message: issue.message,
      })),
      ...loaded.warnings,
    ]);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The world's checks (a root outside the world, a rank sending to itself, a count that does not
 * divide) on the steps that pass the schema, for text whose other parts do not: a scenario made of
 * those steps alone, with the file's world and defaults where they are valid, is compiled, and
 * each problem is placed at its step in the file. So the editor can show them beside the schema's
 * errors instead of after they are fixed. Empty where the text is not JSON or there is no world
 * to check against.
 */
export function worldProblemsOfValidSteps(text: string, file: string, options: CompileOptions = {}): FileProblem[] {
  const json = jsonText(text);
  const errors: ParseError[] = [];
  const root = treeOf(json, errors);
  if (errors.length || !root) return [];
  const raw = JSON.parse(json) as unknown;
  if (!isObject(raw) || !Array.isArray(raw.steps)) return [];
  const fields = scenarioSchema.shape;
  const valid = (key: 'world' | 'defaults' | 'registerBuffers' | 'backend') =>
    fields[key].safeParse(raw[key]).success ? raw[key] : undefined;
  const world = valid('world') ?? (options.ranks !== undefined ? { ranks: options.ranks } : undefined);
  const kept: number[] = [];
  raw.steps.forEach((step, i) => {
    if (stepSchema.safeParse(step).success) kept.push(i);
  });
  if (!world || !kept.length) return [];
  const scenario = scenarioSchema.safeParse({
    version: SCENARIO_VERSION,
    name: 'valid steps',
    world,
    defaults: valid('defaults'),
    registerBuffers: valid('registerBuffers'),
    backend: valid('backend'),
    steps: kept.map((i) => (raw.steps as unknown[])[i]),
  });
  if (!scenario.success) return [];
  // A wait on an async step that the schema refused would read as a wait on no step at all.
  const refusedIds = (raw.steps as unknown[]).flatMap((step, i) =>
    !kept.includes(i) && isObject(step) && typeof step.id === 'string' ? [`"${step.id}"`] : [],
  );
  let issues: PlanError['issues'];
  try {
    compilePlan(scenario.data, options);
    return [];
  } catch (e) {
    if (!(e instanceof PlanError)) return [];
    issues = e.issues;
  }
  const at = lineColumns(text);
  return issues
    .filter((issue) => !refusedIds.some((id) => issue.message.includes(id)))
    .map((issue) => {
      const path =
        issue.path[0] === 'steps' && typeof issue.path[1] === 'number'
          ? ['steps', kept[issue.path[1]], ...issue.path.slice(2)]
          : issue.path;
      return { file, path: formatPath(path), ...at(nodeFor(root, path)?.offset ?? 0), message: issue.message };
    });
}
