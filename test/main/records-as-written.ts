// Run records in files as a run writes them (core/run/run.ts): the fields a listing shows come
// first, so that a folder is listed from each file's head.
import type { RunRecord } from '../../src/shared/run/record/record';

export function asWritten(r: RunRecord): string {
  const { format, version, id, createdAt, finishedAt, scenarioFile, world, status, environment, error, expectation, ...rest } = r;
  const head = { format, version, id, createdAt, finishedAt, scenarioFile, world, status, environment, error };
  return JSON.stringify({ ...head, ...(expectation ? { expectation } : {}), ...rest });
}
