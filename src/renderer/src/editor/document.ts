// What the editor holds: which document, where it saves, and the text it was opened with.
import type { MachineInfo, Template } from '../../../shared/run/api/api.js';
import type { RunRecord } from '../../../shared/run/record/record.js';
import { baseName } from '../ui/file-name';

export interface ScenarioDocument {
  /** Key of its draft: the file's path, "template:<id>" or "upload:<name>". */
  key: string;
  /** File name shown above the editor. */
  name: string;
  /** Where Save writes without asking (Electron); null when it was never saved to a path. */
  path: string | null;
  /** The text as opened or last saved; the editor is dirty when its text differs. */
  savedText: string;
  /** A saved run's scenario (a replay): the backend the run was recorded on. */
  recordedOn?: string;
}

export { baseName };

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

/** What a scenario's title may not hold in a file name. */
const NOT_IN_FILE_NAMES = /[\\/:*?"<>|\u0000-\u001f]+/g;

/**
 * The scenario a saved run ran, as a new document: no path (Save asks where), named as the file it
 * ran from (else after its title, else the record's file), with the text as it ran when the record
 * keeps it (newer records), else the scenario as the record holds it.
 */
export function recordDocument(
  record: Pick<RunRecord, 'scenario' | 'scenarioFile' | 'scenarioText' | 'environment'>,
  from: string,
): ScenarioDocument {
  const title = (record.scenario as { name?: unknown } | null)?.name;
  const fileName = record.scenarioFile ? baseName(record.scenarioFile) : null;
  const name = fileName
    ? /\.json$/i.test(fileName)
      ? fileName
      : `${fileName}.scenario.json`
    : `${(typeof title === 'string' && title.replace(NOT_IN_FILE_NAMES, '-').trim()) || baseName(from).replace(/\.run\.json$/i, '')}.scenario.json`;
  return {
    key: `run:${from}`,
    name,
    path: null,
    savedText: record.scenarioText ?? `${JSON.stringify(record.scenario, null, 2)}\n`,
    recordedOn: record.environment.backend,
  };
}

/**
 * A replay's scenario asks for a backend this machine lacks: what the editor notes instead of a
 * refusal (the record is shown all the same; only running it again needs that backend). null when
 * the machine has the backend the run was recorded on, or it is not known yet.
 */
export function replayBackendNote(recordedOn: string | undefined, machine: MachineInfo | null): string | null {
  if (!recordedOn || !machine) return null;
  const backends = machine.backends as Record<string, { available: boolean } | undefined>;
  if (backends[recordedOn]?.available) return null;
  const here = Object.keys(machine.backends).filter((b) => backends[b]?.available);
  const needs = recordedOn === 'nccl' ? 'a GPU' : `the ${recordedOn} backend`;
  return `recorded on ${recordedOn}; this machine has ${here.join(' and ') || 'no backend'} only — replay shows the record, re-running needs ${needs}`;
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
