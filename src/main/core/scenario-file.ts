// Reads a scenario file from disk; parsing and compiling are shared/plan/text.ts.
import { readFileSync, statSync } from 'node:fs';
import { LIMITS } from '../../shared/scenario/limits.js';
import { parseScenarioText, ScenarioFileError, scenarioTooLarge, type LoadedScenario } from '../../shared/plan/text.js';

const READ_FAILURES: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
};

function readFailure(e: NodeJS.ErrnoException): string {
  return (e.code && READ_FAILURES[e.code]) ?? e.message;
}

export function loadScenarioFile(file: string): LoadedScenario {
  let text: string;
  try {
    const { size } = statSync(file);
    if (size > LIMITS.fileBytes) throw scenarioTooLarge(file, size);
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof ScenarioFileError) throw e;
    throw new ScenarioFileError([{ file, path: '', line: 1, column: 1, message: `cannot read ${file}: ${readFailure(e as NodeJS.ErrnoException)}` }]);
  }
  return parseScenarioText(text, file);
}
