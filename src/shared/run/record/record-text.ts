// A run record's text as a file holds it: whether the file is meant to be one (by its name, or by
// the format its first bytes name, so a cut-off record is never taken for a scenario), and where
// it breaks when it is not a valid one.
import { parse, type ParseError } from 'jsonc-parser';
import { lineColumns } from '../../plan/text.js';
import { jsonErrorMessage } from '../../scenario/messages.js';
import { RECORD_FORMAT, runRecordSchema, type RunRecord } from './record.js';
import { withBlockAnatomy } from './aggregate.js';
import { formatBytes } from '../../data/units.js';

/** A record's file name ends so (saved runs, `clab run --out`, the exports). */
export const RUN_RECORD_SUFFIX = /\.run\.json$/i;
/** How much of a file's start says whether it names the record format (its first field). */
const HEAD_CHARS = 4096;

/**
 * The largest run record the lab opens, the same for every door: `clab`, the app's Open (a saved
 * run) and Open… (a file picked, read by the page). A V8 string holds at most ~512 MiB of text; a
 * record of 177 MiB (a million events) opens in about 4 s.
 */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;

/** One line refusing a file too large to open; `bytes` null where it has no size to tell (a pipe) and was read past the bound. */
export const recordTooLargeMessage = (name: string, bytes: number | null): string =>
  `${name}: ${bytes === null ? '' : `${formatBytes(bytes)} is `}larger than the ${formatBytes(MAX_RECORD_BYTES)} the lab opens (the app and clab alike)`;

/** How much of a large record's start must say it is one (its "format" comes first: core/run/run.ts). */
export const RECORD_START_BYTES = 64 * 1024;

/**
 * Why a record's first RECORD_START_BYTES, of a file longer than that, cannot begin a run record,
 * or null: after any whitespace a record is a JSON object, and its "format", "clab.run", is among
 * the fields that start it. Checked before the rest is read, so that a file of 60 MiB of spaces
 * is refused, not read and parsed whole. (A shorter file is parsed, and says where it breaks.)
 */
export function recordStartProblem(start: string): string | null {
  const what = `(a run record is a JSON object that starts with "format": "${RECORD_FORMAT}")`;
  const within = `its first ${RECORD_START_BYTES / 1024} KiB`;
  const first = start.search(/[^ \t\n\r]/);
  if (first === -1) return `${within} are whitespace only ${what}`;
  if (start[first] !== '{') return `it starts with ${JSON.stringify(start[first])}, not "{" ${what}`;
  // Tolerant: a start cut anywhere still yields the fields before the cut.
  const head = parse(start.slice(first)) as { format?: unknown } | undefined;
  if (head?.format === undefined) return `${within} hold no "format" field ${what}`;
  if (head.format !== RECORD_FORMAT) return `its "format" is ${JSON.stringify(head.format).slice(0, 80)}, not "${RECORD_FORMAT}"`;
  return null;
}

/** Whether a file is meant to be a run record: its name says so, or its first bytes name the record format. */
export function isRunRecordFile(name: string, text: string): boolean {
  if (RUN_RECORD_SUFFIX.test(name)) return true;
  // Tolerant: a head cut anywhere still yields the fields before the cut.
  const head = parse(text.slice(0, HEAD_CHARS)) as { format?: unknown } | null | undefined;
  return typeof head === 'object' && head !== null && head.format === RECORD_FORMAT;
}

export type RecordText = { ok: true; record: RunRecord } | { ok: false; kind: 'json' | 'schema'; problem: string };

/**
 * The record in `text`, or what is wrong with it: where its JSON breaks (line, column and what was
 * expected there) or the first field that breaks the record's schema (its path and why).
 */
export function parseRecordText(text: string): RecordText {
  const json = parseRecordJson(text);
  return json.ok ? validateRecord(json.raw) : { ok: false, kind: 'json', problem: json.problem };
}

/** The JSON in a record's text, or where it breaks (parseRecordText's first half: the text can go before the record is checked). */
export function parseRecordJson(text: string): { ok: true; raw: unknown } | { ok: false; problem: string } {
  try {
    return { ok: true, raw: JSON.parse(text) };
  } catch (e) {
    return { ok: false, problem: jsonBreak(text, e as Error) };
  }
}

/**
 * Parsed JSON checked against the record's schema: the record (an older one with what newer ones
 * derive from its own data, withBlockAnatomy), or the first field that breaks it (its path and why).
 */
export function validateRecord(raw: unknown): RecordText {
  const parsed = runRecordSchema.safeParse(raw);
  if (parsed.success) return { ok: true, record: withBlockAnatomy(parsed.data) };
  const issue = parsed.error.issues[0];
  return { ok: false, kind: 'schema', problem: `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}` };
}

/**
 * Past this, where the JSON breaks is not looked for: finding it parses the text again, slowly
 * (2.4 s for a record of 64 MiB cut short, 10 s for 60 MiB of spaces), holding a door that serves others.
 */
const LOCATED_BREAK_CHARS = 4 * 1024 * 1024;

/** Where JSON.parse gave up, in the words the editor uses for a scenario's JSON. */
function jsonBreak(text: string, error: Error): string {
  if (text.length > LOCATED_BREAK_CHARS) return `its JSON breaks (${text.length} characters): ${error.message}`;
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false });
  const first = errors[0];
  const offset = first?.offset ?? text.length;
  const { line, column } = lineColumns(text)(offset);
  const what = first ? jsonErrorMessage(first, text) : error.message;
  return `its JSON breaks at line ${line}, column ${column} (character ${offset} of ${text.length}): ${what}`;
}
