// What the editor holds: which document, where it saves, and the text it was opened with.
import type { Template } from '../../../shared/run/api.js';

export interface ScenarioDocument {
  /** Key of its draft: the file's path, "template:<id>" or "upload:<name>". */
  key: string;
  /** File name shown above the editor. */
  name: string;
  /** Where Save writes without asking (Electron); null when it was never saved to a path. */
  path: string | null;
  /** The text as opened or last saved; the editor is dirty when its text differs. */
  savedText: string;
}

export const baseName = (path: string) => path.split(/[\\/]/).pop() || path;

export function templateDocument(template: Template): ScenarioDocument {
  return {
    key: `template:${template.id}`,
    name: template.id.slice(template.id.lastIndexOf('/') + 1),
    path: null,
    savedText: template.text,
  };
}

export function fileDocument(path: string, text: string): ScenarioDocument {
  return { key: path, name: baseName(path), path, savedText: text };
}

/** A file read in the browser: no path to save back to. */
export function uploadedDocument(name: string, text: string): ScenarioDocument {
  return { key: `upload:${name}`, name, path: null, savedText: text };
}

/**
 * The scenario a saved run ran, as a new document: no path (Save asks where), named after the
 * scenario, its text as the record keeps it.
 */
export function recordDocument(scenario: unknown, from: string): ScenarioDocument {
  const name = (scenario as { name?: unknown } | null)?.name;
  const base = typeof name === 'string' && /^[\w.-]+$/.test(name) ? name : baseName(from).replace(/\.run\.json$/i, '');
  return { key: `run:${from}`, name: `${base}.scenario.json`, path: null, savedText: `${JSON.stringify(scenario, null, 2)}\n` };
}

/** The world size the scenario asks for, when its text says so. */
export function scenarioWorld(text: string): number | null {
  try {
    const world = (JSON.parse(text) as { world?: { ranks?: unknown; devices?: unknown } }).world;
    if (typeof world?.ranks === 'number') return world.ranks;
    if (Array.isArray(world?.devices)) return world.devices.length;
  } catch {
    // Not JSON yet: the editor shows why.
  }
  return null;
}
