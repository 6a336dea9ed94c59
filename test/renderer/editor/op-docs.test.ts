// Completion and hover on a step's `op`, through the JSON language service that Monaco's JSON
// worker runs, on the generated schema the editor registers (issue 25, items 11 and 13).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMON_OPS } from '../../../src/shared/ops/order';
import { withOpOrder } from '../../../src/renderer/src/editor/op-completion';
import { COLLECTIVES, OBJECT_COLLECTIVES } from '../../../src/shared/ops';

// The language service Monaco bundles (untyped JavaScript): the parts these tests use.
interface Position {
  line: number;
  character: number;
}
interface Doc {
  positionAt(offset: number): Position;
}
interface JsonLanguageService {
  configure(settings: { validate: boolean; schemas: { uri: string; fileMatch: string[]; schema: unknown }[] }): void;
  parseJSONDocument(doc: Doc): unknown;
  doComplete(doc: Doc, position: Position, json: unknown): Promise<{ items: { label: string; sortText?: string }[] } | null>;
  doHover(doc: Doc, position: Position, json: unknown): Promise<{ contents: unknown } | null>;
}
const EXTERNAL = '../../../node_modules/monaco-editor/esm/external';
const { getLanguageService } = (await import(`${EXTERNAL}/vscode-json-languageservice/lib/esm/jsonLanguageService.js`)) as {
  getLanguageService(params: object): JsonLanguageService;
};
const { TextDocument } = (await import(`${EXTERNAL}/vscode-languageserver-textdocument/lib/esm/main.js`)) as {
  TextDocument: { create(uri: string, languageId: string, version: number, text: string): Doc };
};

const SCHEMA_URI = 'file:///schemas/scenario.schema.json';
const ALL_OPS = [...COLLECTIVES, ...OBJECT_COLLECTIVES, 'send', 'recv', 'barrier', 'wait', 'compute', 'group', 'sweep', 'pairs', 'compare'];

function service() {
  const schema = JSON.parse(readFileSync('schemas/scenario.schema.json', 'utf8'));
  const ls = getLanguageService({});
  ls.configure({ validate: true, schemas: [{ uri: SCHEMA_URI, fileMatch: ['*'], schema }] });
  return ls;
}

function at(text: string, marker: string) {
  const doc = TextDocument.create('file:///scenarios/t.scenario.json', 'json', 1, text.replace(marker, ''));
  return { doc, position: doc.positionAt(text.indexOf(marker)) };
}

const STEP = (op: string) => `{"version": 1, "name": "t", "world": {"ranks": 2}, "steps": [{"op": ${op}}]}`;

/** The ops offered at `|`, in the order the editor lists them (by sortText, then label). */
async function opCompletions(text: string): Promise<string[]> {
  const ls = service();
  const { doc, position } = at(text, '|');
  const list = await ls.doComplete(doc, position, ls.parseJSONDocument(doc));
  const linePrefix = text.slice(0, text.indexOf('|'));
  return withOpOrder(linePrefix, list?.items ?? [])
    .sort((a, b) => (a.sortText ?? a.label).localeCompare(b.sortText ?? b.label))
    .map((i) => JSON.parse(i.label) as string);
}

async function hoverText(op: string): Promise<string> {
  const ls = service();
  const { doc, position } = at(STEP(`"${op.slice(0, 2)}|${op.slice(2)}"`), '|');
  const hover = await ls.doHover(doc, position, ls.parseJSONDocument(doc));
  const contents = hover?.contents;
  return (Array.isArray(contents) ? contents : [contents])
    .map((c: unknown) => (typeof c === 'string' ? c : ((c as { value?: string } | undefined)?.value ?? '')))
    .join('\n');
}

describe('completion of a step op', () => {
  it('offers every op on "op": "" of a fresh step, most used first', async () => {
    const ops = await opCompletions(STEP('"|"'));
    expect([...ops].sort()).toEqual([...ALL_OPS].sort());
    expect(ops.slice(0, COMMON_OPS.length)).toEqual(COMMON_OPS);
  });

  it('offers every op on a step that already has a count', async () => {
    const ops = await opCompletions(`{"version": 1, "name": "t", "world": {"ranks": 2}, "steps": [{"op": "|", "count": 4}]}`);
    expect([...ops].sort()).toEqual([...ALL_OPS].sort());
    expect(ops.slice(0, 3)).toEqual(['all_reduce', 'broadcast', 'send']);
  });

  it('leaves completions other than an op value as the worker gives them', () => {
    const items: { label: string; sortText?: string }[] = [{ label: '"float32"' }, { label: '"all_reduce"' }];
    expect(withOpOrder('    "dtype": "', items)).toEqual(items);
    expect(withOpOrder('    "op": "', items).map((i) => i.sortText)).toEqual(['001', '000']);
  });
});

describe('hover on a step op', () => {
  it.each(['all_reduce', 'broadcast_object', 'send', 'sweep'])("shows %s's description and no other op's", async (op) => {
    const text = (await hoverText(op)).replace(/\\/g, ''); // Markdown escapes: all\_reduce
    expect(text).toContain(`\`${op}\``);
    for (const other of ALL_OPS.filter((o) => o !== op)) {
      expect(text).not.toMatch(new RegExp(`(^|[^\\w])${other}:`, 'm'));
      expect(text).not.toContain(`**${other}** —`);
    }
  });
});
