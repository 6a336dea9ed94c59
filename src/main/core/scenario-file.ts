// Reads a scenario file from disk; parsing and compiling are shared/scenario/text.ts.
import { readFileSync, statSync } from 'node:fs';
import { LIMITS } from '../../shared/scenario/limits.js';
import { parseScenarioText, ScenarioFileError, scenarioTooLarge, type LoadedScenario } from '../../shared/scenario/text.js';

export function loadScenarioFile(file: string): LoadedScenario {
  let text: string;
  try {
    const { size } = statSync(file);
    if (size > LIMITS.fileBytes) throw scenarioTooLarge(file, size);
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof ScenarioFileError) throw e;
    throw new ScenarioFileError([{ file, path: '', line: 0, column: 0, message: `cannot read the file: ${(e as Error).message}` }]);
  }
  return parseScenarioText(text, file);
}
