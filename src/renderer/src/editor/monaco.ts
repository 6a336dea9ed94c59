// The Monaco editor core with only the features the scenario editor uses, and JSON mode that
// knows the scenario schema (completion, hover docs and error markers as you type).
import './monaco-environment';
import * as monaco from 'monaco-editor/editor/editor.api';
import { jsonDefaults } from 'monaco-editor/languages/features/json/register';
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

export function scenarioModelUri(fileName: string): monaco.Uri {
  return monaco.Uri.from({ scheme: 'file', path: `/scenarios/${fileName.replace(/[\\/]/g, '_') || 'untitled.scenario.json'}` });
}

export { monaco };
