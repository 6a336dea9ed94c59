// The problems of a scenario text, as the tests read them: [] when it compiles; any exception
// other than ScenarioFileError fails the test that asked.
import { compileLoaded, parseScenarioText, ScenarioFileError, type FileProblem } from '../../../src/shared/plan/text';

export function problems(text: string, ranks?: number): FileProblem[] {
  try {
    compileLoaded(parseScenarioText(text, 'x.scenario.json'), { ranks });
  } catch (e) {
    if (e instanceof ScenarioFileError) return e.problems;
    throw e;
  }
  return [];
}
