// Run records on disk: written atomically (temp file + rename), validated when read.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runRecordSchema, type RunRecord } from '../../shared/record.js';

export function writeRecordAtomic(file: string, record: RunRecord): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = join(dirname(file), `.${process.pid}.${Date.now()}.tmp`);
  writeFileSync(tmp, JSON.stringify(record));
  renameSync(tmp, file);
}

export function readRecord(file: string): RunRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: cannot read the run record: ${(e as Error).message}`);
  }
  const r = runRecordSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`${file}: not a valid run record: ${i.path.join('.') || '(root)'}: ${i.message}`);
  }
  return r.data;
}

export function defaultRecordPath(scenarioName: string, createdAt: Date, dir = 'runs'): string {
  const slug = scenarioName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'run';
  const stamp = createdAt.toISOString().replace(/[:.]/g, '-');
  return join(dir, `${slug}-${stamp}.run.json`);
}
