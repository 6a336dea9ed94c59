// Scenario problems in a learner's words: what was expected, what was found, and the nearest
// valid name for a misspelt one. Turns zod issues (with the scenario schema walked to the value
// at fault, for bounds the issue does not carry) and jsonc-parser errors into lab messages.
import { z } from 'zod';
import { printParseErrorCode, type ParseError } from 'jsonc-parser';

type Issue = z.core.$ZodIssue;
type Schema = z.core.$ZodType;
type Path = (string | number)[];

const defaultMessage = z.locales.en().localeError;

/** The value at `path` inside `raw`, or undefined when it does not exist. */
export function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const key of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** Optimal string alignment distance (Damerau–Levenshtein without repeated edits of a substring). */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The option a misspelt `word` most likely meant, or null when none is close. */
export function nearestName(word: string, options: readonly string[]): string | null {
  if (word.length > 100) return null;
  const plain = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
  let best: { option: string; distance: number } | null = null;
  for (const option of options) {
    const distance = plain(word) === plain(option) ? 0 : editDistance(word.toLowerCase(), option.toLowerCase());
    if (!best || distance < best.distance) best = { option, distance };
  }
  if (best && best.distance <= Math.max(1, Math.floor(best.option.length / 3))) return best.option;
  // A short name spelt out in full ("maximum" for max, "average" for avg): the one option whose
  // letters the word holds in order, from its first.
  const spelt = options.filter((o) => plain(o).length >= 3 && plain(o)[0] === plain(word)[0] && inOrder(plain(o), plain(word)));
  return spelt.length === 1 ? spelt[0] : null;
}

/** Whether every letter of `short` comes in `long`, in order. */
function inOrder(short: string, long: string): boolean {
  let i = 0;
  for (const c of long) if (c === short[i]) i++;
  return i === short.length;
}

/** A value as a message quotes it: short, on one line. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'string') {
    const shown = v.length > 40 ? `${v.slice(0, 40)}…` : v;
    return v === '' ? 'an empty string' : JSON.stringify(shown);
  }
  if (Array.isArray(v)) return v.length === 0 ? 'an empty list' : `a list of ${v.length}`;
  if (typeof v === 'object') return 'an object';
  return String(v);
}

const quoteList = (values: readonly unknown[]) => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** Unwraps the wrappers that do not change what a value must look like. */
function inner(schema: Schema): Schema {
  let s = schema;
  for (;;) {
    const def = s._zod.def as { type: string; innerType?: Schema; in?: Schema };
    if (def.innerType && ['optional', 'nullable', 'default', 'readonly', 'nonoptional', 'catch', 'prefault'].includes(def.type))
      s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else return s;
  }
}

/** The schema that checks the value at `path` (data decides a discriminated union's branch), or null. */
export function schemaAt(root: Schema, path: readonly PropertyKey[], raw: unknown): Schema | null {
  let s: Schema | null = inner(root);
  for (let i = 0; i <= path.length && s; i++) {
    const def = s._zod.def as {
      type: string;
      options?: Schema[];
      discriminator?: string;
      shape?: Record<string, Schema>;
      element?: Schema;
    };
    if (def.type === 'union') {
      const here = valueAt(raw, path.slice(0, i));
      const tag = def.discriminator ? valueAt(here, [def.discriminator]) : undefined;
      const branch = def.options!.find((o) => {
        const shape = (inner(o)._zod.def as { shape?: Record<string, Schema> }).shape;
        if (def.discriminator) return shape?.[def.discriminator] && z.safeParse(shape[def.discriminator], tag).success;
        return z.safeParse(o, here).success || (i < path.length && shape !== undefined && String(path[i]) in shape);
      });
      if (!branch) return i === path.length ? s : null;
      s = inner(branch);
      i--; // the branch itself is looked into at this depth
      continue;
    }
    if (i === path.length) return s;
    const key = path[i];
    if (def.type === 'object') s = def.shape![String(key)] ? inner(def.shape![String(key)]) : null;
    else if (def.type === 'array') s = inner(def.element!);
    else return null;
  }
  return s;
}

const SAFE = Number.MAX_SAFE_INTEGER;

/** Zod's type names in words: what an expectation says, and an issue's expected type where the schema says no more. */
const TYPE_WORDS: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'a string',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
  bigint: 'a whole number',
};

/** What a value checked by `schema` must be, in words ("a whole number ≥ 1"), or null when it cannot say. */
export function expectation(schema: Schema | null): string | null {
  if (!schema) return null;
  const s = inner(schema);
  const def = s._zod.def as { type: string; values?: unknown[]; options?: Schema[]; entries?: Record<string, unknown> };
  switch (def.type) {
    case 'number': {
      const n = s as unknown as { minValue: number | null; isInt: boolean | null };
      const min = n.minValue !== null && Math.abs(n.minValue) < SAFE ? ` ≥ ${n.minValue}` : '';
      return `${TYPE_WORDS[n.isInt ? 'int' : 'number']}${min}`;
    }
    case 'string':
    case 'boolean':
    case 'array':
    case 'object':
      return TYPE_WORDS[def.type];
    case 'literal':
      return quoteList(def.values!);
    case 'enum':
      return `one of ${quoteList(Object.values(def.entries!))}`;
    case 'union': {
      const each = def.options!.map(expectation);
      return each.every((e) => e !== null) ? [...new Set(each)].join(' or ') : null;
    }
    default:
      return null;
  }
}

/** One issue's message, and the path it is best shown at (an unknown key at the key itself). */
export interface LabIssue {
  path: Path;
  message: string;
}

export function issueMessage(issue: Issue, root: Schema, raw: unknown): LabIssue {
  const path = issue.path as Path;
  const got = valueAt(raw, path);
  // A message the schema's author wrote says what is expected better than any rewording.
  const own = issue.message !== defaultMessage({ ...issue, input: got } as never);
  const gotText = (v: unknown) => (v === undefined ? 'nothing (the key is missing)' : describeValue(v));
  switch (issue.code) {
    case 'invalid_type': {
      if (own) return { path, message: `${issue.message}, got ${gotText(got)}` };
      const expected = expectation(schemaAt(root, path, raw)) ?? TYPE_WORDS[issue.expected] ?? issue.expected;
      return { path, message: `expected ${expected}, got ${gotText(got)}` };
    }
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const bound = Number(small ? (issue as { minimum: unknown }).minimum : (issue as { maximum: unknown }).maximum);
      const inclusive = issue.inclusive !== false;
      if (own) return { path, message: `${issue.message}, got ${gotText(got)}` };
      if (issue.origin === 'array' || issue.origin === 'set') {
        const n = Array.isArray(got) ? got.length : 0;
        return { path, message: `expected ${small ? 'at least' : 'at most'} ${plural(bound, 'item')}, got ${n === 0 ? 'none' : n}` };
      }
      if (issue.origin === 'string') {
        const n = typeof got === 'string' ? got.length : 0;
        return {
          path,
          message: `expected ${small ? 'at least' : 'at most'} ${plural(bound, 'character')}, got ${n === 0 ? 'an empty string' : plural(n, 'character')}`,
        };
      }
      const word = small ? (inclusive ? 'at least' : 'more than') : inclusive ? 'at most' : 'less than';
      return { path, message: `expected ${word} ${bound}, got ${gotText(got)}` };
    }
    case 'invalid_value': {
      const values = issue.values as unknown[];
      if (values.length === 1) return { path, message: `expected ${quoteList(values)}, got ${gotText(got)}` };
      return { path, message: withSuggestion(`expected one of ${quoteList(values)}, got ${gotText(got)}`, got, values) };
    }
    case 'unrecognized_keys': {
      const shape = (schemaAt(root, path, raw)?._zod.def as { shape?: Record<string, unknown> } | undefined)?.shape;
      const known = Object.keys(shape ?? {});
      const [first, ...rest] = issue.keys;
      const key = rest.length
        ? `unknown keys ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`
        : `unknown key ${JSON.stringify(first)}`;
      const meant = rest.length ? null : nearestName(first, known);
      const hint = meant ? `: did you mean "${meant}"?` : known.length ? ` (expected ${quoteList(known)})` : '';
      return { path: rest.length ? path : [...path, first], message: `${key}${hint}` };
    }
    case 'invalid_union': {
      const u = issue as { discriminator?: string; options?: unknown[]; errors: Issue[][] };
      if (u.discriminator !== undefined && u.options) {
        // zod puts the discriminator on the path; the value is what the file has there.
        const options = u.options.map(String);
        if (got === undefined) return { path, message: `missing: expected one of ${options.join(', ')}` };
        return { path, message: withSuggestion(`expected one of ${options.join(', ')}, got ${gotText(got)}`, got, options) };
      }
      const nearly = nearestBranch(u.errors);
      if (nearly) return issueMessage({ ...nearly, path: [...path, ...nearly.path] } as Issue, root, raw);
      const expected = expectation(schemaAt(root, path, raw));
      return { path, message: expected ? `expected ${expected}, got ${gotText(got)}` : issue.message };
    }
    case 'invalid_format':
      return {
        path,
        message: own ? `${issue.message}, got ${gotText(got)}` : `expected a string in the ${issue.format} format, got ${gotText(got)}`,
      };
    case 'not_multiple_of':
      return { path, message: `expected a multiple of ${String(issue.divisor)}, got ${gotText(got)}` };
    default:
      return { path, message: issue.message };
  }
}

/**
 * The branch of a union that nearly matched: the one whose problems lie deepest in the value
 * (it got furthest), then the one with fewest. Null when every branch failed on the value's
 * type alone (nothing nearly matched: the union's choices are listed instead).
 */
function nearestBranch(branches: Issue[][]): Issue | null {
  const depth = (issues: Issue[]) => Math.max(...issues.map((i) => i.path.length));
  const typeOnly = (issues: Issue[]) => issues.every((i) => i.path.length === 0 && i.code === 'invalid_type');
  const candidates = branches.filter((b) => b.length > 0 && !typeOnly(b));
  if (!candidates.length) return null;
  candidates.sort((a, b) => depth(b) - depth(a) || a.length - b.length);
  return candidates[0][0];
}

function withSuggestion(message: string, got: unknown, options: readonly unknown[]): string {
  const meant =
    typeof got === 'string'
      ? nearestName(
          got,
          options.filter((o): o is string => typeof o === 'string'),
        )
      : null;
  return meant ? `${message}: did you mean ${meant}?` : message;
}

const CLOSERS: Record<string, string> = {
  CloseBraceExpected: "'}' to close an object",
  CloseBracketExpected: "']' to close a list",
  ColonExpected: "':' after the property name",
  CommaExpected: "',' between two items",
  PropertyNameExpected: 'a property name in double quotes',
  ValueExpected: 'a value (a number, a string in double quotes, true, false, null, an object or a list)',
};

/** A jsonc-parser error in words; `text` is the whole file, for what stands at the error. */
export function jsonErrorMessage(error: ParseError, text: string): string {
  const atEnd = text.slice(error.offset).trim() === '';
  const found = text.slice(error.offset, error.offset + Math.max(1, Math.min(error.length, 20)));
  const before = text.slice(0, error.offset).trimEnd().at(-1);
  const code = printParseErrorCode(error.error);
  switch (code) {
    case 'CloseBraceExpected':
    case 'CloseBracketExpected':
    case 'ColonExpected':
    case 'CommaExpected':
    case 'PropertyNameExpected':
    case 'ValueExpected': {
      const expected = CLOSERS[code];
      if (atEnd) return `the file ends too early: expected ${expected}`;
      if (before === ',' && (found === '}' || found === ']')) return `a comma before '${found}': JSON allows none after the last item`;
      return `expected ${expected}, found ${JSON.stringify(found)}`;
    }
    case 'UnexpectedEndOfString':
      return "a string is not closed: expected '\"' before the end of the line";
    case 'UnexpectedEndOfNumber':
      return `a number is cut short: ${JSON.stringify(found)}`;
    case 'InvalidNumberFormat':
      return `not a number JSON accepts: ${JSON.stringify(found)} (no leading zeros, "+", "." or hex)`;
    case 'InvalidSymbol':
      if (found === '\uFEFF') return 'a byte order mark in the middle of the file';
      return /^['\w]/.test(found)
        ? `unexpected ${JSON.stringify(found)}: strings and property names need double quotes`
        : `unexpected ${JSON.stringify(found)}`;
    case 'InvalidCommentToken':
    case 'UnexpectedEndOfComment':
      return 'comments are not allowed in a scenario file (it is plain JSON)';
    case 'InvalidUnicode':
      return 'a \\u escape needs four hex digits, e.g. \\u00e9';
    case 'InvalidEscapeCharacter': {
      const escape = /\\./.exec(text.slice(error.offset, error.offset + error.length))?.[0] ?? found;
      return `an escape JSON does not know: ${escape} (use \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u followed by four hex digits)`;
    }
    case 'InvalidCharacter':
      return 'a control character inside a string: write it as an escape such as \\n or \\t';
    case 'EndOfFileExpected':
      return `expected the end of the file after the scenario's closing '}', found ${JSON.stringify(found)}`;
    default:
      return 'invalid JSON';
  }
}
