// The scenarios a user starts from: every scenarios/*.scenario.json shipped with the package, and
// those one folder down (scenarios/mistakes/: the gallery of mistakes), named "<folder>/<file>".
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Template } from '../../../shared/run/api/api.js';
import { LIMITS } from '../../../shared/scenario/limits.js';
import { readCappedText } from '../ground/read-capped.js';

const SCENARIO_SUFFIX = '.scenario.json';

function template(dir: string, id: string): Template | null {
  let text: string;
  let head: { name?: unknown; description?: unknown };
  try {
    // A regular file within a scenario's size limit; anything else is left out, as a file that is not JSON is.
    text = readCappedText(join(dir, id), { maxBytes: LIMITS.fileBytes, regularOnly: true });
    head = JSON.parse(text) as typeof head;
  } catch {
    return null;
  }
  return {
    id,
    name: typeof head.name === 'string' ? head.name : id.slice(id.lastIndexOf('/') + 1, -SCENARIO_SUFFIX.length),
    description: typeof head.description === 'string' ? head.description : '',
    text,
  };
}

/** One template per readable scenario file, top-level files first, by name; a file that is not JSON is left out. */
export function readTemplates(dir: string): Template[] {
  const entries = readdirSync(dir).sort();
  const folders = entries.filter((e) => statSync(join(dir, e)).isDirectory());
  const ids = [
    ...entries.filter((f) => f.endsWith(SCENARIO_SUFFIX)),
    ...folders.flatMap((folder) =>
      readdirSync(join(dir, folder))
        .filter((f) => f.endsWith(SCENARIO_SUFFIX))
        .sort()
        .map((f) => `${folder}/${f}`),
    ),
  ];
  return ids.map((id) => template(dir, id)).filter((t): t is Template => t !== null);
}
