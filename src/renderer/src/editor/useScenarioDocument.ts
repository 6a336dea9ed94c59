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
  open(doc: ScenarioDocument): void;
  edit(text: string): void;
  /** The text now on disk (or downloaded) is the current text. */
  saved(doc: Pick<ScenarioDocument, 'key' | 'name' | 'path'>): void;
  revert(): void;
}

interface Loaded {
  doc: ScenarioDocument | null;
  text: string;
  generation: number;
}

function load(doc: ScenarioDocument, generation: number): Loaded {
  writeSession(doc);
  return { doc, text: readDraft(doc.key) ?? doc.savedText, generation };
}

export function useScenarioDocument(): ScenarioDocumentState {
  const [state, setState] = useState<Loaded>(() => {
    const doc = readSession();
    return doc ? load(doc, 1) : { doc: null, text: '', generation: 0 };
  });

  const open = useCallback((doc: ScenarioDocument) => setState((s) => load(doc, s.generation + 1)), []);

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
        return { ...s, text: s.doc.savedText, generation: s.generation + 1 };
      }),
    [],
  );

  return {
    doc: state.doc,
    text: state.text,
    dirty: state.doc !== null && state.text !== state.doc.savedText,
    generation: state.generation,
    open,
    edit,
    saved,
    revert,
  };
}
