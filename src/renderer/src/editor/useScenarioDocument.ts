// The open scenario: its identity, its current text (kept as a draft while unsaved) and a
// generation that bumps whenever different text is loaded into the editor.
import { useCallback, useState } from 'react';
import { forgetDraft, readDraft, readSession, writeDraft, writeSession } from './drafts';
import type { ScenarioDocument } from './document';

export interface ScenarioDocumentState {
  doc: ScenarioDocument | null;
  text: string;
  dirty: boolean;
  /** Bumps when text comes from outside the editor (open, revert). */
  generation: number;
  /**
   * The text loaded last was the user's choice (a template picked, a file opened, a revert), not
   * the page's (the session restored, the first template): only then does the editor take focus,
   * so that a keyboard user's first Tab on a fresh page moves through the page rather than indenting.
   */
  chosen: boolean;
  /** `chosen`: false where the page opens it by itself. */
  open(doc: ScenarioDocument, chosen?: boolean): void;
  edit(text: string): void;
  /** The text now on disk (or downloaded) is the current text. */
  saved(doc: Pick<ScenarioDocument, 'key' | 'name' | 'path'>): void;
  revert(): void;
}

interface Loaded {
  doc: ScenarioDocument | null;
  text: string;
  generation: number;
  chosen: boolean;
}

function load(doc: ScenarioDocument, generation: number, chosen: boolean): Loaded {
  writeSession(doc);
  return { doc, text: readDraft(doc.key) ?? doc.savedText, generation, chosen };
}

export function useScenarioDocument(): ScenarioDocumentState {
  const [state, setState] = useState<Loaded>(() => {
    const doc = readSession();
    return doc ? load(doc, 1, false) : { doc: null, text: '', generation: 0, chosen: false };
  });

  const open = useCallback((doc: ScenarioDocument, chosen = true) => setState((s) => load(doc, s.generation + 1, chosen)), []);

  const edit = useCallback(
    (text: string) =>
      setState((s) => {
        if (s.doc) writeDraft(s.doc.key, text, s.doc.savedText);
        return { ...s, text };
      }),
    [],
  );

  const saved = useCallback(
    (where: Pick<ScenarioDocument, 'key' | 'name' | 'path'>) =>
      setState((s) => {
        if (!s.doc) return s;
        forgetDraft(s.doc.key);
        forgetDraft(where.key);
        const doc = { ...where, savedText: s.text };
        writeSession(doc);
        return { ...s, doc };
      }),
    [],
  );

  const revert = useCallback(
    () =>
      setState((s) => {
        if (!s.doc) return s;
        forgetDraft(s.doc.key);
        return { ...s, text: s.doc.savedText, generation: s.generation + 1, chosen: true };
      }),
    [],
  );

  return {
    doc: state.doc,
    text: state.text,
    dirty: state.doc !== null && state.text !== state.doc.savedText,
    generation: state.generation,
    chosen: state.chosen,
    open,
    edit,
    saved,
    revert,
  };
}
