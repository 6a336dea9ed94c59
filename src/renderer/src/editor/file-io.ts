// Files in a browser, where there is no path to open or save: read what the user picked or
// dropped, and hand text back as a download.
import type { OpenedFile } from '../../../shared/run/api/api.js';
import { isRunRecordFile, MAX_RECORD_BYTES, parseRecordText, recordTooLargeMessage } from '../../../shared/run/record/record-text.js';
import { downloadBlob } from '../ui/download';

/**
 * A run record (validated) or scenario text. A file named *.run.json, or whose first bytes name
 * the record format, is a record: when it is not a valid one (cut off, or a field wrong) that is
 * said, with where it breaks, rather than opening it in the editor as a scenario full of errors.
 */
export function classifyFileText(name: string, text: string): OpenedFile {
  if (!isRunRecordFile(name, text)) return { kind: 'scenario', path: name, text };
  const parsed = parseRecordText(text);
  if (!parsed.ok) throw new Error(`${name} is not a valid run record: ${parsed.problem}`);
  return { kind: 'run', path: name, record: parsed.record };
}

/** Each file, refused unread past the bound every door shares (the lab's Open says the same). */
export async function readFiles(files: Iterable<File>): Promise<OpenedFile[]> {
  const opened: OpenedFile[] = [];
  for (const file of files) {
    if (file.size > MAX_RECORD_BYTES) throw new Error(recordTooLargeMessage(file.name, file.size));
    opened.push(classifyFileText(file.name, await file.text()));
  }
  return opened;
}

export function downloadText(fileName: string, text: string): void {
  downloadBlob(fileName, new Blob([text], { type: 'application/json' }));
}
