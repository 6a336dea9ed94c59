// Unsaved text survives a restart: one draft per document key (a path, a template or an upload),
// plus which document was open last.
import type { ScenarioDocument } from './document';

const DRAFT_PREFIX = 'clab.draft:';
const SESSION_KEY = 'clab.session';

export function readDraft(key: string): string | null {
  return localStorage.getItem(DRAFT_PREFIX + key);
}

/** Keeps the text when it differs from the saved text; forgets it otherwise. */
export function writeDraft(key: string, text: string, savedText: string): void {
  try {
    if (text === savedText) localStorage.removeItem(DRAFT_PREFIX + key);
    else localStorage.setItem(DRAFT_PREFIX + key, text);
  } catch (e) {
    console.warn('could not keep the unsaved text', e);
  }
}

export function forgetDraft(key: string): void {
  localStorage.removeItem(DRAFT_PREFIX + key);
}

export function readSession(): ScenarioDocument | null {
  try {
    const value = JSON.parse(localStorage.getItem(SESSION_KEY) ?? 'null') as Partial<ScenarioDocument> | null;
    if (value && typeof value.key === 'string' && typeof value.name === 'string' && typeof value.savedText === 'string') {
      return {
        key: value.key,
        name: value.name,
        path: typeof value.path === 'string' ? value.path : null,
        savedText: value.savedText,
        ...(typeof value.recordedOn === 'string' ? { recordedOn: value.recordedOn } : {}),
      };
    }
  } catch {
    // A session from an older version or a broken one: start afresh.
  }
  return null;
}

export function writeSession(doc: ScenarioDocument): void {
  try {
    localStorage.setItem(SESSION_KEY, JSON.stringify(doc));
  } catch (e) {
    console.warn('could not remember the open document', e);
  }
}
