// The scenarios a user starts from: every scenarios/*.scenario.json shipped with the package.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Template } from '../../shared/api.js';

const SCENARIO_SUFFIX = '.scenario.json';

/** One template per readable scenario file, by file name; a file that is not JSON is left out. */
export function readTemplates(dir: string): Template[] {
  const templates: Template[] = [];
  for (const id of readdirSync(dir).filter((f) => f.endsWith(SCENARIO_SUFFIX)).sort()) {
    const text = readFileSync(join(dir, id), 'utf8');
    let head: { name?: unknown; description?: unknown };
    try {
      head = JSON.parse(text) as typeof head;
    } catch {
      continue;
    }
    templates.push({
      id,
      name: typeof head.name === 'string' ? head.name : id.slice(0, -SCENARIO_SUFFIX.length),
      description: typeof head.description === 'string' ? head.description : '',
      text,
    });
  }
  return templates;
}
