// Run records on disk: written atomically (temp file + rename), validated when read.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file.js';
import { runRecordSchema, type RunRecord } from '../../shared/run/record.js';

export function writeRecordAtomic(file: string, record: RunRecord): void {
  writeFileAtomic(file, JSON.stringify(record));
}

export function readRecord(file: string): RunRecord {
  return readRecordText(file).record;
}

/** The record and the text it was read from (which passed the same checks), for sending on as it is. */
export function readRecordText(file: string): { record: RunRecord; text: string } {
  let raw: unknown;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: cannot read the run record: ${(e as Error).message}`);
  }
  const r = runRecordSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`${file}: not a valid run record: ${i.path.join('.') || '(root)'}: ${i.message}`);
  }
  return { record: r.data, text };
}

export function defaultRecordPath(scenarioName: string, createdAt: Date, dir = 'runs'): string {
  const slug = scenarioName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'run';
  const stamp = createdAt.toISOString().replace(/[:.]/g, '-');
  return join(dir, `${slug}-${stamp}.run.json`);
}
