// Files in a browser, where there is no path to open or save: read what the user picked or
// dropped, and hand text back as a download.
import type { OpenedFile } from '../../../shared/run/api.js';
import { RECORD_FORMAT, runRecordSchema } from '../../../shared/run/record.js';
import { downloadBlob } from '../ui/download';

/** A run record (validated) or scenario text, told apart by the record's `format` field. */
export function classifyFileText(name: string, text: string): OpenedFile {
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // Broken JSON is a scenario still being written: the editor shows where it breaks.
  }
  if (json && typeof json === 'object' && (json as { format?: unknown }).format === RECORD_FORMAT) {
    const parsed = runRecordSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`${name} is not a valid run record: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    return { kind: 'run', path: name, record: parsed.data };
  }
  return { kind: 'scenario', path: name, text };
}

export async function readFiles(files: Iterable<File>): Promise<OpenedFile[]> {
  const opened: OpenedFile[] = [];
  for (const file of files) opened.push(classifyFileText(file.name, await file.text()));
  return opened;
}

export function downloadText(fileName: string, text: string): void {
  downloadBlob(fileName, new Blob([text], { type: 'application/json' }));
}
