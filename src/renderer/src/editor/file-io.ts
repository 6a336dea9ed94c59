// Files in a browser, where there is no path to open or save: read what the user picked or
// dropped, and hand text back as a download.
import type { OpenedFile } from '../../../shared/run/api/api.js';
import { isRunRecordFile, MAX_RECORD_BYTES, parseRecordText, recordTooLargeMessage } from '../../../shared/run/record/record-text.js';
import { packedBody } from '../../../shared/run/record/record-file.js';
import { unpackRecord, type Utf8 } from '../../../shared/run/record/packed-run.js';
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

const utf8: Utf8 = { encode: (text) => new TextEncoder().encode(text), decode: (b) => new TextDecoder('utf-8', { fatal: true }).decode(b) };

/** A record file written packed (record-file.ts), checked; null where the file is not one. */
function packedRecordFile(name: string, bytes: Uint8Array<ArrayBuffer>): OpenedFile | null {
  try {
    const body = packedBody(bytes, utf8);
    return body && { kind: 'run', path: name, record: unpackRecord(body, utf8) };
  } catch (e) {
    throw new Error(`${name} is not a valid run record: ${(e as Error).message}`, { cause: e });
  }
}

/** Each file, refused unread past the bound every door shares (the lab's Open says the same). */
export async function readFiles(files: Iterable<File>): Promise<OpenedFile[]> {
  const opened: OpenedFile[] = [];
  for (const file of files) {
    if (file.size > MAX_RECORD_BYTES) throw new Error(recordTooLargeMessage(file.name, file.size));
    const bytes = new Uint8Array(await file.arrayBuffer());
    opened.push(packedRecordFile(file.name, bytes) ?? classifyFileText(file.name, new TextDecoder().decode(bytes)));
  }
  return opened;
}

export function downloadText(fileName: string, text: string): void {
  downloadBlob(fileName, new Blob([text], { type: 'application/json' }));
}
