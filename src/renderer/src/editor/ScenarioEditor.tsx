// The Monaco editor over one scenario. Monaco owns the text while typing; the document hook
// gets every change, and loads new text by bumping `generation`. The lab's problems appear as
// markers beside Monaco's own JSON and schema markers. Tab indents in the editor, so it says how
// to leave by keyboard while it has focus: Ctrl+M makes Tab move focus, and Esc then Tab leaves;
// and it takes focus only when the user chose what it shows, never on the page's own load.
import { useEffect, useRef, useState } from 'react';
import './editor.css';
import { applyLabMarkers, clearLabMarkers, jsonMarkedLines, summarizeMarkers, type MarkerSummary } from './problem-markers';
import { MONACO_THEMES, monaco, scenarioModelUri } from './monaco';
import { leaveByTab } from './tab-exit';
import { colourScheme, onColourScheme, type ColourScheme } from '../ui/theme';
import type { ScenarioProblems } from './useScenarioValidation';

export type { MarkerSummary } from './problem-markers';

interface Props {
  name: string;
  text: string;
  generation: number;
  /** Take focus when `generation` brings new text (the user chose it; not on the page's own load). */
  focusOnLoad: boolean;
  problems: ScenarioProblems;
  onChange(text: string): void;
  onRun(): void;
  onSave(): void;
  onMarkers(summary: MarkerSummary): void;
  /** Moves the cursor there; a new object each time it is asked for. */
  reveal: { line: number; column: number } | null;
}

function disposeModel(editor: monaco.editor.IStandaloneCodeEditor): void {
  const model = editor.getModel();
  editor.setModel(null);
  if (!model) return;
  // Markers belong to the URI, not the model: the next model of that name must not inherit them.
  clearLabMarkers(model);
  model.dispose();
}

const monacoTheme = (scheme: ColourScheme) => MONACO_THEMES[scheme];

export function ScenarioEditor({ name, text, generation, focusOnLoad, problems, onChange, onRun, onSave, onMarkers, reveal }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const latest = useRef({ name, text, focusOnLoad, problems, onChange, onRun, onSave, onMarkers });
  latest.current = { name, text, focusOnLoad, problems, onChange, onRun, onSave, onMarkers };
  const [focused, setFocused] = useState(false);
  const [tabMovesFocus, setTabMovesFocus] = useState(false);

  useEffect(() => {
    const editor = monaco.editor.create(host.current!, {
      automaticLayout: true,
      minimap: { enabled: false },
      fontSize: 13,
      tabSize: 2,
      scrollBeyondLastLine: false,
      fixedOverflowWidgets: true,
      wordWrap: 'on',
      wrappingIndent: 'indent',
      ariaLabel: 'Scenario editor. Tab inserts indentation; Ctrl+M makes Tab move focus; Escape then Tab leaves the editor.',
      theme: monacoTheme(colourScheme()),
    });
    const scheme = onColourScheme((next) => monaco.editor.setTheme(monacoTheme(next)));
    editorRef.current = editor;
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.Enter, () => latest.current.onRun());
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => latest.current.onSave());
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyM, () => {
      const moves = !editor.getOption(monaco.editor.EditorOption.tabFocusMode);
      editor.updateOptions({ tabFocusMode: moves });
      setTabMovesFocus(moves);
    });
    const leave = leaveByTab(host.current!);
    const focus = editor.onDidFocusEditorWidget(() => setFocused(true));
    const blur = editor.onDidBlurEditorWidget(() => setFocused(false));
    const changes = editor.onDidChangeModelContent(() => latest.current.onChange(editor.getValue()));
    let jsonLines = '';
    const markers = monaco.editor.onDidChangeMarkers((uris) => {
      const model = editor.getModel();
      if (!model || !uris.some((uri) => uri.toString() === model.uri.toString())) return;
      latest.current.onMarkers(summarizeMarkers(model));
      const lines = jsonMarkedLines(model);
      if (lines !== jsonLines) {
        jsonLines = lines;
        applyLabMarkers(model, latest.current.problems);
      }
    });
    return () => {
      changes.dispose();
      markers.dispose();
      focus.dispose();
      blur.dispose();
      leave();
      scheme();
      disposeModel(editor);
      editor.dispose();
      editorRef.current = null;
    };
  }, []);

  useEffect(() => {
    const editor = editorRef.current;
    if (!editor) return;
    disposeModel(editor);
    const uri = scenarioModelUri(latest.current.name);
    monaco.editor.getModel(uri)?.dispose();
    editor.setModel(monaco.editor.createModel(latest.current.text, 'json', uri));
    latest.current.onMarkers(summarizeMarkers(editor.getModel()!));
    if (latest.current.focusOnLoad) editor.focus();
  }, [generation]);

  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (model) applyLabMarkers(model, problems);
  }, [problems, generation]);

  useEffect(() => {
    const editor = editorRef.current;
    if (!editor || !reveal) return;
    const position = { lineNumber: Math.max(reveal.line, 1), column: Math.max(reveal.column, 1) };
    editor.setPosition(position);
    editor.revealPositionInCenter(position);
    editor.focus();
  }, [reveal]);

  return (
    <div className="scenario-editor-box">
      <div className="scenario-editor" data-testid="editor" ref={host} />
      {focused && (
        <p className="editor-tab-hint" data-testid="editor-tab-hint" aria-hidden="true">
          {tabMovesFocus ? 'Tab moves focus · Ctrl+M: Tab indents' : 'Tab inserts indentation · Ctrl+M: Tab moves focus · Esc, Tab: leave'}
        </p>
      )}
    </div>
  );
}
