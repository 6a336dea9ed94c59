// The Monaco editor core with only the features the scenario editor uses, and JSON mode that
// knows the scenario schema (completion, hover docs and error markers as you type).
import './monaco-environment';
import * as monaco from 'monaco-editor/editor/editor.api';
import { getWorker, jsonDefaults } from 'monaco-editor/languages/features/json/register';
import 'monaco-editor/editor/browser/coreCommands';
import 'monaco-editor/editor/contrib/bracketMatching/browser/bracketMatching';
import 'monaco-editor/editor/contrib/clipboard/browser/clipboard';
import 'monaco-editor/editor/contrib/comment/browser/comment';
import 'monaco-editor/editor/contrib/contextmenu/browser/contextmenu';
import 'monaco-editor/editor/contrib/cursorUndo/browser/cursorUndo';
import 'monaco-editor/editor/contrib/find/browser/findController';
import 'monaco-editor/editor/contrib/folding/browser/folding';
import 'monaco-editor/editor/contrib/format/browser/formatActions';
import 'monaco-editor/editor/contrib/gotoError/browser/gotoError';
import 'monaco-editor/editor/contrib/hover/browser/hoverContribution';
import 'monaco-editor/editor/contrib/indentation/browser/indentation';
import 'monaco-editor/editor/contrib/linesOperations/browser/linesOperations';
import 'monaco-editor/editor/contrib/multicursor/browser/multicursor';
import 'monaco-editor/editor/contrib/smartSelect/browser/smartSelect';
import 'monaco-editor/editor/contrib/snippet/browser/snippetController2';
import 'monaco-editor/editor/contrib/suggest/browser/suggestController';
import 'monaco-editor/editor/contrib/wordHighlighter/browser/wordHighlighter';
import 'monaco-editor/editor/contrib/wordOperations/browser/wordOperations';
import scenarioSchema from '../../../../schemas/scenario.schema.json';
import { withOpOrder } from './op-completion';

/**
 * Scenario files say `"$schema": "../schemas/scenario.schema.json"`; models live under
 * file:///scenarios/, so that reference resolves to the schema registered here.
 */
const SCENARIO_SCHEMA_URI = 'file:///schemas/scenario.schema.json';

jsonDefaults.setDiagnosticsOptions({
  validate: true,
  allowComments: false,
  trailingCommas: 'error',
  // The lab refuses what the schema refuses, so the editor says so as loudly.
  schemaValidation: 'error',
  enableSchemaRequest: false,
  schemaRequest: 'ignore',
  schemas: [{ uri: SCENARIO_SCHEMA_URI, fileMatch: ['*'], schema: scenarioSchema }],
});

// Completion comes from the JSON worker as Monaco's own provider would ask it, with the step
// ops put in their order of use (the worker gives its suggestions no order of their own).
jsonDefaults.setModeConfiguration({ ...jsonDefaults.modeConfiguration, completionItems: false });

interface LspRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}
interface LspCompletionItem {
  label: string;
  kind?: number;
  detail?: string;
  documentation?: string | { kind: string; value: string };
  sortText?: string;
  filterText?: string;
  insertText?: string;
  insertTextFormat?: number;
  textEdit?: { newText: string; range?: LspRange; insert?: LspRange; replace?: LspRange };
  command?: { title: string; command: string; arguments?: unknown[] };
}
interface JsonCompletionWorker {
  doComplete(
    uri: string,
    position: { line: number; character: number },
  ): Promise<{ isIncomplete: boolean; items: LspCompletionItem[] } | null>;
}

const toRange = (r: LspRange) => new monaco.Range(r.start.line + 1, r.start.character + 1, r.end.line + 1, r.end.character + 1);
const Kind = monaco.languages.CompletionItemKind;
// LSP CompletionItemKind → Monaco's, for the kinds the JSON language service gives.
const KINDS: Record<number, monaco.languages.CompletionItemKind> = {
  6: Kind.Variable,
  9: Kind.Module,
  10: Kind.Property,
  12: Kind.Value,
  13: Kind.Enum,
  14: Kind.Keyword,
  15: Kind.Snippet,
  17: Kind.File,
  18: Kind.Reference,
  21: Kind.Constant,
};

monaco.languages.registerCompletionItemProvider('json', {
  triggerCharacters: [' ', ':', '"'],
  async provideCompletionItems(model, position) {
    const worker = (await (await getWorker())(model.uri)) as unknown as JsonCompletionWorker;
    const info = await worker.doComplete(model.uri.toString(), { line: position.lineNumber - 1, character: position.column - 1 });
    if (!info) return undefined;
    const word = model.getWordUntilPosition(position);
    const wordRange = new monaco.Range(position.lineNumber, word.startColumn, position.lineNumber, word.endColumn);
    const suggestions = info.items.map((entry): monaco.languages.CompletionItem => {
      const edit = entry.textEdit;
      return {
        label: entry.label,
        insertText: edit?.newText ?? entry.insertText ?? entry.label,
        sortText: entry.sortText,
        filterText: entry.filterText,
        documentation: entry.documentation,
        detail: entry.detail,
        command: entry.command && { id: entry.command.command, title: entry.command.title, arguments: entry.command.arguments },
        range:
          edit?.insert && edit.replace
            ? { insert: toRange(edit.insert), replace: toRange(edit.replace) }
            : edit?.range
              ? toRange(edit.range)
              : wordRange,
        kind: KINDS[entry.kind ?? 10] ?? Kind.Property,
        insertTextRules: entry.insertTextFormat === 2 ? monaco.languages.CompletionItemInsertTextRule.InsertAsSnippet : undefined,
      };
    });
    const linePrefix = model.getValueInRange(new monaco.Range(position.lineNumber, 1, position.lineNumber, position.column));
    return { incomplete: info.isIncomplete, suggestions: withOpOrder(linePrefix, suggestions) };
  },
});

/**
 * Monaco's light and dark themes, with line numbers that read at 4.5:1 (WCAG AA): Monaco draws the
 * number of the line after a final newline dimmed, at 40 % of the others' colour (1.75:1 on white).
 * The dimmed number stays the paler of the two, and the dark theme's others are lighter to make room.
 */
export const MONACO_THEMES = { light: 'clab-light', dark: 'clab-dark' } as const;
monaco.editor.defineTheme(MONACO_THEMES.light, {
  base: 'vs',
  inherit: true,
  rules: [],
  colors: { 'editorLineNumber.dimmedForeground': '#5f7680' },
});
monaco.editor.defineTheme(MONACO_THEMES.dark, {
  base: 'vs-dark',
  inherit: true,
  rules: [],
  colors: { 'editorLineNumber.foreground': '#9d9d9d', 'editorLineNumber.dimmedForeground': '#888888' },
});

export function scenarioModelUri(fileName: string): monaco.Uri {
  return monaco.Uri.from({ scheme: 'file', path: `/scenarios/${fileName.replace(/[\\/]/g, '_') || 'untitled.scenario.json'}` });
}

export { monaco };
