// Reads a scenario file from disk; parsing and compiling are shared/plan/text.ts. At most the
// size limit is read, counted as read: /dev/zero and pipes have no size to check beforehand.
import { LIMITS } from '../../../shared/scenario/limits.js';
import { parseScenarioText, ScenarioFileError, scenarioTooLarge, type LoadedScenario } from '../../../shared/plan/text.js';
import { FileTooLargeError, readCappedText } from '../ground/read-capped.js';

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
    text = readCappedText(file, { maxBytes: LIMITS.fileBytes });
  } catch (e) {
    if (e instanceof FileTooLargeError) throw scenarioTooLarge(file, e.exact ? e.bytes : null);
    throw new ScenarioFileError([
      { file, path: '', line: 1, column: 1, message: `cannot read ${file}: ${readFailure(e as NodeJS.ErrnoException)}` },
    ]);
  }
  return parseScenarioText(text, file);
}
