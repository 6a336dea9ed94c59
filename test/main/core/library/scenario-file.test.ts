import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../../../src/main/core/library/scenario-file';
import { ScenarioFileError } from '../../../../src/shared/plan/text';
import { tempDir } from '../../../setup/temp-dirs';

function problemOf(file: string) {
  try {
    loadScenarioFile(file);
  } catch (e) {
    if (e instanceof ScenarioFileError) return e.problems;
    throw e;
  }
  return [];
}

describe('reading a scenario file', () => {
  it('says plainly why a file cannot be read, at the start of the file', () => {
    const dir = tempDir('read');
    const missing = join(dir, 'absent.scenario.json');
    expect(problemOf(missing)).toEqual([{ file: missing, path: '', line: 1, column: 1, message: `cannot read ${missing}: no such file` }]);
    expect(problemOf(dir)[0].message).toBe(`cannot read ${dir}: it is a directory, not a file`);
  });
});
